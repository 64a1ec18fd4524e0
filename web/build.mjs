// Builds the page into dist/ (or $HIVEGATE_WEB_OUT): esbuild bundles
// src/main.ts and the CSS it imports into dist/assets/ under content-hashed
// names, and index.html is copied with its two asset URLs pointed at them.
// URLs stay relative, so the page works under any path prefix. The output is
// committed (web/embed.go embeds it), so the build must be reproducible:
// tests/run.sh rebuilds elsewhere and compares.
import * as esbuild from "esbuild";
import { mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const out = path.resolve(here, process.env.HIVEGATE_WEB_OUT || "dist");

await rm(out, { recursive: true, force: true });
await mkdir(path.join(out, "assets"), { recursive: true });

/**
 * The module "hivegate:gen" imports every generated file under src/gen and
 * exports their namespaces as an array (sorted by path, so the bundle is
 * reproducible). The explorer finds every service and RPC in them at
 * runtime, so a renamed or added proto needs only regeneration.
 */
const genModules = {
  name: "hivegate-gen",
  setup(build) {
    build.onResolve({ filter: /^hivegate:gen$/ }, () => ({ path: "gen", namespace: "hivegate" }));
    build.onLoad({ filter: /.*/, namespace: "hivegate" }, async () => {
      const dir = path.join(here, "src", "gen");
      const files = (await readdir(dir, { recursive: true }))
        .map((f) => f.split(path.sep).join("/"))
        .filter((f) => f.endsWith("_pb.ts"))
        .sort();
      const lines = files.map((f, i) => `import * as m${i} from "./${f}";`);
      lines.push(`export default [${files.map((_, i) => `m${i}`).join(", ")}];`);
      return { contents: lines.join("\n"), loader: "ts", resolveDir: dir };
    });
  },
};

const result = await esbuild.build({
  absWorkingDir: here,
  entryPoints: { app: "src/main.ts" },
  outdir: path.join(out, "assets"),
  entryNames: "[name]-[hash]",
  bundle: true,
  format: "esm",
  target: "es2022",
  platform: "browser",
  minify: true,
  legalComments: "none",
  metafile: true,
  logLevel: "warning",
  plugins: [genModules],
});

/** The built file (relative to out) for the entry's JS or CSS. */
function built(ext) {
  const file = Object.keys(result.metafile.outputs).find((f) => f.endsWith(ext));
  if (!file) throw new Error(`esbuild wrote no ${ext} file`);
  return path.relative(out, path.resolve(here, file)).split(path.sep).join("/");
}

const js = built(".js");
const css = built(".css");
let html = await readFile(path.join(here, "index.html"), "utf8");
for (const [from, to] of [["./assets/app.js", js], ["./assets/app.css", css]]) {
  if (!html.includes(`"${from}"`)) throw new Error(`index.html does not reference ${from}`);
  html = html.replace(`"${from}"`, `"./${to}"`);
}
await writeFile(path.join(out, "index.html"), html);
console.log(`built ${path.relative(here, out) || "."}: index.html, ${js}, ${css}`);

// The operator page, a second entry point with its own HTML (src/operator/build.mjs).
const { buildOperator } = await import("./src/operator/build.mjs");
await buildOperator(here, out);
