/**
 * `instance.ts` for Node 20: one JavaScript module built the way the
 * portable test runs build theirs (`_tools/runtimes/bundle.ts`: `deno
 * bundle`, resolved exactly as `deno run` resolves it), with the packages
 * that carry native code (`@deno/kv`, `bcrypt`) and Node's HTTP adapter
 * (`@hono/node-server`) left out and loaded from
 * `_tools/runtimes/node_modules` (`npm ci --ignore-scripts` of the
 * `package.json` there; `bcrypt`'s tarball ships prebuilt N-API binaries,
 * so nothing is downloaded or compiled at install).
 *
 * @module
 */
import { join } from "node:path";
import { bundleProgram, ROOT } from "../../_tools/runtimes/bundle.ts";
import { dependencies, which } from "../../_tools/runtimes/binaries.ts";

/** The instance's bundle and what runs it. */
export interface NodeInstance {
  /** The `node` binary. */
  node: string;
  /** The bundle, `_tools/runtimes/.out/deploy_instance.mjs`. */
  script: string;
  /** Environment the bundle needs (the auth app's `public/` folder). */
  env: Record<string, string>;
}

/**
 * Finds `node`, installs `_tools/runtimes/node_modules` if a package is
 * missing, and bundles `instance.ts`. Throws an error that says what is
 * missing.
 */
export async function prepareNodeInstance(): Promise<NodeInstance> {
  const node = await which("node");
  if (node === undefined) throw new Error("node is not installed");
  if (!await dependencies()) {
    throw new Error(
      "_tools/runtimes/install.sh failed (npm or the registry unreachable?)",
    );
  }
  const script = await bundleProgram(
    join(ROOT, "examples/deploy/instance.ts"),
    "deploy_instance",
  );
  return {
    node,
    script,
    env: { AUTH_PUBLIC_DIR: join(ROOT, "examples/auth/public") },
  };
}
