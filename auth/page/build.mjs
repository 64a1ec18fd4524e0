// Builds the login page's script and style into dist/ (or
// $HIVEGATE_AUTH_PAGE_OUT): esbuild bundles src/page.js with
// @noble/secp256k1, @noble/hashes, @scure/base and uqr (the HiveAuth
// link's QR code) into one file, and the
// CSS is minified. The output is committed (auth/page.go embeds it) and
// must be reproducible: tests/run.sh rebuilds it elsewhere and compares.
import * as esbuild from "esbuild";
import { mkdir, rename, rm } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const out = path.resolve(here, process.env.HIVEGATE_AUTH_PAGE_OUT || "dist");

await rm(out, { recursive: true, force: true });
await mkdir(out, { recursive: true });
await esbuild.build({
  absWorkingDir: here,
  entryPoints: { page: "src/page.js", "page-style": "src/page.css" },
  outdir: out,
  bundle: true,
  format: "iife",
  target: "es2022",
  platform: "browser",
  minify: true,
  legalComments: "none",
  logLevel: "warning",
});
// The style's entry is named apart from the script's; serve it as page.css.
await rename(path.join(out, "page-style.css"), path.join(out, "page.css"));
console.log(`built ${path.relative(here, out) || "."}: page.js, page.css`);
