// Builds the operator page (the admin listener's /operator/) into
// <out>/operator: esbuild bundles src/operator/main.ts and its CSS into
// assets/ under content-hashed names, and src/operator/index.html is copied
// with its two asset URLs pointed at them. web/build.mjs calls it after
// building the main page, so `npm run build` writes both and tests/run.sh
// checks both are reproducible.
import * as esbuild from "esbuild";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";

/**
 * @param {string} web  the web/ directory
 * @param {string} out  the output directory (dist)
 */
export async function buildOperator(web, out) {
  const dir = path.join(out, "operator");
  await mkdir(path.join(dir, "assets"), { recursive: true });
  const result = await esbuild.build({
    absWorkingDir: web,
    entryPoints: { operator: "src/operator/main.ts" },
    outdir: path.join(dir, "assets"),
    entryNames: "[name]-[hash]",
    bundle: true,
    format: "esm",
    target: "es2022",
    platform: "browser",
    minify: true,
    legalComments: "none",
    metafile: true,
    logLevel: "warning",
  });
  const built = (ext) => {
    const file = Object.keys(result.metafile.outputs).find((f) => f.endsWith(ext));
    if (!file) throw new Error(`esbuild wrote no ${ext} file for the operator page`);
    return path.relative(dir, path.resolve(web, file)).split(path.sep).join("/");
  };
  let html = await readFile(path.join(web, "src", "operator", "index.html"), "utf8");
  for (const [from, to] of [
    ["./assets/operator.js", built(".js")],
    ["./assets/operator.css", built(".css")],
  ]) {
    if (!html.includes(`"${from}"`)) throw new Error(`src/operator/index.html does not reference ${from}`);
    html = html.replace(`"${from}"`, `"./${to}"`);
  }
  await writeFile(path.join(dir, "index.html"), html);
  console.log(`built ${path.relative(web, dir)}: index.html and its assets`);
}
