// The explorer's catalog of the typed API: every service and RPC, found at
// runtime in the file descriptors protoc-gen-es embeds in web/src/gen. No
// RPC is listed by hand; build.mjs bundles every generated file, so after
// `make generate-ts` a renamed, added or removed service shows up as it is.
import {
  createRegistry,
  getOption,
  hasOption,
  type DescExtension,
  type DescFile,
  type DescMethod,
  type DescService,
  type Registry,
} from "@bufbuild/protobuf";
import genModules from "hivegate:gen";

/** The typed API as the explorer shows it. */
export interface Catalog {
  /** Every message, enum, extension and service: for JSON with Any and for lookups. */
  readonly registry: Registry;
  /** Every service, by full name. */
  readonly services: readonly DescService[];
}

/** The extension that names the JSON-RPC method an RPC is translated to. */
const jsonRpcOptionName = "hivegate.v1.jsonrpc_method";

/** Returns the catalog of the generated files bundled with the page. */
export function loadCatalog(): Catalog {
  const files = new Map<string, DescFile>();
  for (const mod of genModules) {
    for (const value of Object.values(mod)) {
      if (isFile(value)) files.set(value.name, value);
    }
  }
  const registry = createRegistry(...files.values());
  const services = [...files.values()]
    .flatMap((f) => f.services)
    .sort((a, b) => (a.typeName < b.typeName ? -1 : a.typeName > b.typeName ? 1 : 0));
  return { registry, services };
}

function isFile(v: unknown): v is DescFile {
  return typeof v === "object" && v !== null && (v as { kind?: unknown }).kind === "file";
}

/** Returns the JSON-RPC method an RPC is translated to, from its hivegate.v1.jsonrpc_method option. */
export function jsonRpcMethod(catalog: Catalog, method: DescMethod): string | undefined {
  const ext = catalog.registry.getExtension(jsonRpcOptionName) as DescExtension | undefined;
  if (!ext || !hasOption(method, ext)) return undefined;
  const v = getOption(method, ext);
  return typeof v === "string" && v !== "" ? v : undefined;
}

/** Returns the RPC named "package.Service/Method", or undefined. */
export function findMethod(catalog: Catalog, path: string): DescMethod | undefined {
  const slash = path.lastIndexOf("/");
  if (slash < 0) return undefined;
  const service = catalog.services.find((s) => s.typeName === path.slice(0, slash));
  return service?.methods.find((m) => m.name === path.slice(slash + 1));
}

/** Returns the path an RPC is served at and deep-linked by: "package.Service/Method". */
export function methodPath(method: DescMethod): string {
  return `${method.parent.typeName}/${method.name}`;
}
