// Builds the pages into dist/ (or $HIVEGATE_WEB_OUT): the explorer at the
// root and the operator page (the admin listener's /operator/) under
// operator/. For each, esbuild bundles the entry and the CSS it imports into
// assets/ under content-hashed names, and its index.html is copied with its
// two asset URLs pointed at them. URLs stay relative, so the pages work under
// any path prefix. The output is committed (web/embed.go embeds it), so the
// build must be reproducible: tests/run.sh rebuilds elsewhere and compares.
import * as esbuild from "esbuild";
import { mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const out = path.resolve(here, process.env.HIVEGATE_WEB_OUT || "dist");

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

/**
 * Builds one page into dir: entry (a path under web/) bundled as
 * assets/<name>-<hash>.{js,css}, and html (a path under web/), whose
 * "./assets/<name>.js" and "./assets/<name>.css" are pointed at them.
 */
async function buildPage({ name, entry, html, dir, plugins = [] }) {
  await mkdir(path.join(dir, "assets"), { recursive: true });
  const result = await esbuild.build({
    absWorkingDir: here,
    entryPoints: { [name]: entry },
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
    plugins,
  });
  const built = (ext) => {
    const file = Object.keys(result.metafile.outputs).find((f) => f.endsWith(ext));
    if (!file) throw new Error(`esbuild wrote no ${ext} file for ${entry}`);
    return path.relative(dir, path.resolve(here, file)).split(path.sep).join("/");
  };
  let text = await readFile(path.join(here, html), "utf8");
  const files = [];
  for (const ext of [".js", ".css"]) {
    const from = `./assets/${name}${ext}`;
    if (!text.includes(`"${from}"`)) throw new Error(`${html} does not reference ${from}`);
    const to = built(ext);
    text = text.replace(`"${from}"`, `"./${to}"`);
    files.push(to);
  }
  await writeFile(path.join(dir, "index.html"), text);
  console.log(`built ${path.relative(here, dir) || "."}: index.html, ${files.join(", ")}`);
}

await rm(out, { recursive: true, force: true });
await buildPage({ name: "app", entry: "src/main.ts", html: "index.html", dir: out, plugins: [genModules] });
await buildPage({ name: "operator", entry: "src/operator/main.ts", html: "src/operator/index.html", dir: path.join(out, "operator") });
