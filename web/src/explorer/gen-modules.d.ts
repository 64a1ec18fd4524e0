// The virtual module build.mjs provides: every generated module under src/gen.
declare module "hivegate:gen" {
  const modules: readonly Record<string, unknown>[];
  export default modules;
}
