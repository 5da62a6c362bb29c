/**
 * Three instances of the auth app on Redis behind HAProxy, on one port,
 * and a rolling restart that nobody notices.
 *
 * ```sh
 * deno task deploy:local            # starts everything; Ctrl-C stops it
 * deno task deploy:local restart    # (another terminal) replaces the instances one at a time
 * deno task deploy:local --runtime=node            # the instances on Node 20
 * deno task deploy:local --runtime=node,deno,node  # one runtime per instance
 * ```
 *
 * `start` runs a throwaway `redis-server` (or uses `REDIS_URL`), three
 * instances (`instance.ts`) on free loopback ports, and HAProxy
 * (`haproxy.cfg`) on `PORT` (8030), which health-checks `/readyz`
 * of each every 250 ms. Instance logs go to `.data/deploy/app<n>.log`.
 * `restart` asks the running `start` (through a control port on
 * loopback, written to `.data/deploy/control.json`) to replace each
 * instance in turn: `SIGTERM`, readiness 503 and out of HAProxy's
 * rotation, `DRAIN_MS` of serving on, in-flight requests finished,
 * exit; then a new process on the same port, in rotation once HAProxy
 * saw it ready twice. It prints each step with its time.
 *
 * `--runtime=node` runs the instances on Node (`node_bundle.ts`: the same
 * `instance.ts`, bundled); a list (`node,deno,node`) gives each its own,
 * side by side on the one Redis and the one KV file. A restarted instance
 * keeps its runtime.
 *
 * The same steps are a module: `startDeployment()` (the restart test and
 * the benchmark use it).
 *
 * @module
 */
import { join } from "node:path";
import { type NodeInstance, prepareNodeInstance } from "./node_bundle.ts";
import { parseRuntimes, type Runtime } from "./runtimes.ts";

export { parseRuntimes, type Runtime };

const HERE = new URL(".", import.meta.url).pathname;
const ROOT = new URL("../../", import.meta.url).pathname;

/** A free TCP port on 127.0.0.1. */
function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
}

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Options of {@linkcode startDeployment}. */
export interface DeploymentOptions {
  /**
   * What runs the instances: one runtime for all three, or one each
   * (app1, app2, app3). Default `"deno"`.
   */
  runtimes?: Runtime | readonly Runtime[];
  /** Where HAProxy listens. Default `0`: a free port. */
  frontPort?: number;
  /** A Redis to use; default: a throwaway `redis-server` on a free port. */
  redisUrl?: string;
  /** Where state and logs go. Default: a new temporary folder. */
  dir?: string;
  /** The instances' `DRAIN_MS`. Default 1500. */
  drainMs?: number;
  /** More environment for the instances (`BCRYPT_COST`, ...). */
  env?: Record<string, string>;
  /** Told each step. Default: nothing. */
  log?: (line: string) => void;
}

/** One running instance. */
export interface Instance {
  readonly name: string;
  readonly port: number;
  /** What runs it (a restart keeps it). */
  readonly runtime: Runtime;
  /** Its current process. */
  child: Deno.ChildProcess;
}

/** What a restart of one instance took, in ms from its SIGTERM. */
export interface RestartStep {
  name: string;
  /** HAProxy saw it not ready (out of rotation). */
  outOfRotationMs: number;
  /** The old process exited, with this code. */
  exitedMs: number;
  exitCode: number;
  /** The new process listens. */
  listeningMs: number;
  /** HAProxy has it in rotation again. */
  inRotationMs: number;
}

/** A running deployment. */
export interface Deployment {
  /** `http://127.0.0.1:<front port>`: HAProxy. */
  readonly url: string;
  /** HAProxy's status page (`;csv` for machines). */
  readonly statsUrl: string;
  readonly redisUrl: string;
  readonly dir: string;
  readonly instances: readonly Instance[];
  /** Each server's HAProxy status (`UP`, `DOWN`, ...), by name. */
  status(): Promise<Map<string, string>>;
  /** Replaces the instances one at a time; resolves with each step's times. */
  restart(log?: (line: string) => void): Promise<RestartStep[]>;
  /** Stops HAProxy, the instances and the Redis it started. */
  stop(): Promise<void>;
}

async function startRedis(
  dir: string,
): Promise<{ url: string; child: Deno.ChildProcess }> {
  const port = freePort();
  const child = new Deno.Command("redis-server", {
    args: [
      "--port",
      String(port),
      "--bind",
      "127.0.0.1",
      "--save",
      "",
      "--appendonly",
      "no",
      "--dir",
      dir,
    ],
    stdout: "null",
    stderr: "null",
  }).spawn();
  for (let i = 0; i < 100; i++) {
    try {
      const connection = await Deno.connect({ hostname: "127.0.0.1", port });
      connection.close();
      return { url: `redis://127.0.0.1:${port}`, child };
    } catch {
      await delay(50);
    }
  }
  child.kill("SIGKILL");
  throw new Error("redis-server did not start");
}

/** Starts Redis (unless given), three instances and HAProxy. */
export async function startDeployment(
  options: DeploymentOptions = {},
): Promise<Deployment> {
  const log = options.log ?? (() => {});
  const dir = options.dir ?? await Deno.makeTempDir({ prefix: "deploy-" });
  await Deno.mkdir(dir, { recursive: true });
  const redis = options.redisUrl === undefined
    ? await startRedis(dir)
    : undefined;
  const redisUrl = options.redisUrl ?? redis!.url;
  const secret = crypto.randomUUID() + crypto.randomUUID();
  const frontPort = options.frontPort || freePort();
  const statsPort = freePort();
  const drainMs = options.drainMs ?? 1500;
  const runtimes: readonly Runtime[] = typeof options.runtimes === "string"
    ? [options.runtimes, options.runtimes, options.runtimes]
    : options.runtimes ?? ["deno", "deno", "deno"];
  if (runtimes.length !== 3) {
    throw new RangeError(
      `startDeployment(): runtimes must name 3 runtimes, got ${runtimes.length}`,
    );
  }
  // Node runs the same instance.ts, bundled once here.
  const node: NodeInstance | undefined = runtimes.includes("node")
    ? await prepareNodeInstance()
    : undefined;

  function commandOf(runtime: Runtime): [string, string[]] {
    if (runtime === "node") return [node!.node, [node!.script]];
    return [Deno.execPath(), [
      "run",
      // deno.json's deploy-instance permission set (found from cwd).
      "-P=deploy-instance",
      // Its own folder (a test's is a temporary one) instead of `.data`.
      `--allow-write=${dir}`,
      "--unstable-kv",
      join(HERE, "instance.ts"),
    ]];
  }

  async function spawnInstance(
    name: string,
    port: number,
    runtime: Runtime,
  ): Promise<Deno.ChildProcess> {
    const logFile = await Deno.open(join(dir, `${name}.log`), {
      create: true,
      append: true,
    });
    const [command, args] = commandOf(runtime);
    const child = new Deno.Command(command, {
      args,
      cwd: ROOT,
      env: {
        ...(runtime === "node" ? node!.env : {}),
        ...options.env,
        PORT: String(port),
        INSTANCE: name,
        REDIS_URL: redisUrl,
        DENO_KV_PATH: join(dir, "users.kv"),
        SESSION_SECRET: secret,
        DRAIN_MS: String(drainMs),
        APP_URL: `http://localhost:${frontPort}`,
      },
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    // The first line says it listens; the rest goes to its log file.
    const reader = child.stdout.pipeThrough(new TextDecoderStream())
      .getReader();
    let first = "";
    while (!first.includes("\n")) {
      const { value, done } = await reader.read();
      if (done) break;
      first += value;
    }
    const encoder = new TextEncoder();
    await logFile.write(encoder.encode(first));
    (async () => {
      for (;;) {
        const { value, done } = await reader.read().catch(() => ({
          value: undefined,
          done: true,
        }));
        if (done) break;
        await logFile.write(encoder.encode(value!)).catch(() => {});
      }
    })();
    child.stderr.pipeTo(logFile.writable).catch(() => {});
    if (!/listening \d+/.test(first)) {
      child.kill("SIGKILL");
      throw new Error(
        `${name} did not start: ${first}${await Deno.readTextFile(
          join(dir, `${name}.log`),
        ).catch(() => "")}`,
      );
    }
    return child;
  }

  const instances: Instance[] = [];
  for (const [i, runtime] of runtimes.entries()) {
    const name = `app${i + 1}`;
    const port = freePort();
    instances.push({
      name,
      port,
      runtime,
      child: await spawnInstance(name, port, runtime),
    });
    log(`${name} listening on 127.0.0.1:${port} (${runtime})`);
  }

  const haproxy = new Deno.Command("haproxy", {
    args: ["-db", "-f", join(HERE, "haproxy.cfg")],
    env: {
      FRONT_PORT: String(frontPort),
      STATS_PORT: String(statsPort),
      APP1_PORT: String(instances[0]!.port),
      APP2_PORT: String(instances[1]!.port),
      APP3_PORT: String(instances[2]!.port),
    },
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const haproxyLog = await Deno.open(join(dir, "haproxy.log"), {
    create: true,
    append: true,
  });
  haproxy.stderr.pipeTo(haproxyLog.writable).catch(() => {});

  const statsUrl = `http://127.0.0.1:${statsPort}/stats`;
  async function status(): Promise<Map<string, string>> {
    const text = await (await fetch(`${statsUrl};csv`)).text();
    const [header, ...rows] = text.trim().split("\n");
    const columns = header!.replace(/^# /, "").split(",");
    const at = columns.indexOf("status");
    const servers = new Map<string, string>();
    for (const row of rows) {
      const cells = row.split(",");
      if (cells[0] === "app" && /^app\d$/.test(cells[1]!)) {
        servers.set(cells[1]!, cells[at]!);
      }
    }
    return servers;
  }
  async function waitFor(
    name: string,
    up: boolean,
    limitMs = 30_000,
  ): Promise<void> {
    const deadline = Date.now() + limitMs;
    for (;;) {
      const state = await status().catch(() => undefined);
      const current = state?.get(name) ?? "";
      if (up ? current === "UP" : current.startsWith("DOWN")) return;
      if (Date.now() > deadline) {
        throw new Error(
          `${name} not ${up ? "UP" : "DOWN"} in HAProxy: ${current}`,
        );
      }
      await delay(25);
    }
  }
  for (const instance of instances) await waitFor(instance.name, true);
  log(`HAProxy on http://127.0.0.1:${frontPort}/ (status ${statsUrl})`);

  let restarting: Promise<RestartStep[]> | undefined;
  async function restartAll(
    say: (line: string) => void,
  ): Promise<RestartStep[]> {
    const steps: RestartStep[] = [];
    for (const instance of instances) {
      const start = performance.now();
      const since = () => Math.round(performance.now() - start);
      say(`${instance.name}: SIGTERM`);
      instance.child.kill("SIGTERM");
      await waitFor(instance.name, false);
      const outOfRotationMs = since();
      say(
        `${instance.name}: out of rotation after ${outOfRotationMs} ms (readiness 503)`,
      );
      const { code } = await instance.child.status;
      const exitedMs = since();
      say(
        `${instance.name}: drained and exited (code ${code}) after ${exitedMs} ms`,
      );
      instance.child = await spawnInstance(
        instance.name,
        instance.port,
        instance.runtime,
      );
      const listeningMs = since();
      say(`${instance.name}: new process listening after ${listeningMs} ms`);
      await waitFor(instance.name, true);
      const inRotationMs = since();
      say(`${instance.name}: in rotation after ${inRotationMs} ms`);
      steps.push({
        name: instance.name,
        outOfRotationMs,
        exitedMs,
        exitCode: code,
        listeningMs,
        inRotationMs,
      });
    }
    return steps;
  }

  return {
    url: `http://127.0.0.1:${frontPort}`,
    statsUrl,
    redisUrl,
    dir,
    instances,
    status,
    restart(say = log) {
      if (restarting !== undefined) {
        return Promise.reject(new Error("a restart is under way"));
      }
      restarting = restartAll(say).finally(() => restarting = undefined);
      return restarting;
    },
    async stop() {
      await restarting?.catch(() => {});
      haproxy.kill("SIGTERM");
      await haproxy.status;
      await Promise.all(instances.map(async ({ child }) => {
        try {
          child.kill("SIGTERM");
        } catch { /* exited */ }
        await child.status;
      }));
      if (redis !== undefined) {
        redis.child.kill("SIGTERM");
        await redis.child.status;
      }
      if (options.dir === undefined) {
        await Deno.remove(dir, { recursive: true }).catch(() => {});
      }
    },
  };
}

const CONTROL = join(ROOT, ".data/deploy/control.json");

async function main(args: readonly string[]): Promise<void> {
  let runtimes: Runtime[] | undefined;
  const commands: string[] = [];
  for (const arg of args) {
    if (arg.startsWith("--runtime=")) {
      runtimes = parseRuntimes(arg.slice("--runtime=".length));
    } else if (arg.startsWith("-")) {
      console.error(
        `Unknown option ${arg}: use --runtime=deno|node|<3 runtimes>`,
      );
      Deno.exit(1);
    } else commands.push(arg);
  }
  const command = commands[0] ?? "start";
  if (command === "restart") {
    const { port } = JSON.parse(
      await Deno.readTextFile(CONTROL).catch(() => {
        console.error(
          "Nothing to restart: start it first with `deno task deploy:local`.",
        );
        Deno.exit(1);
      }),
    );
    const response = await fetch(`http://127.0.0.1:${port}/restart`, {
      method: "POST",
    }).catch(() => {
      // A control file left by a deployment that did not stop cleanly.
      console.error(
        "Nothing to restart: no deployment answers; start it with `deno task deploy:local`.",
      );
      Deno.exit(1);
    });
    for await (
      const chunk of response.body!.pipeThrough(new TextDecoderStream())
    ) {
      Deno.stdout.writeSync(new TextEncoder().encode(chunk));
    }
    return;
  }
  if (command !== "start") {
    console.error(`Unknown command ${command}: use start or restart`);
    Deno.exit(1);
  }
  const dir = join(ROOT, ".data/deploy");
  const frontPort = Number(Deno.env.get("PORT") ?? 8030);
  const deployment = await startDeployment({
    runtimes,
    frontPort,
    redisUrl: Deno.env.get("REDIS_URL"),
    dir,
    drainMs: Number(Deno.env.get("DRAIN_MS") ?? 1500),
    log: (line) => console.log(line),
  });
  // The control port: `restart` asks here.
  const control = Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    onListen() {},
  }, (request) => {
    if (
      request.method !== "POST" || new URL(request.url).pathname !== "/restart"
    ) {
      return new Response("Not Found", { status: 404 });
    }
    const { readable, writable } = new TransformStream<string, string>();
    const writer = writable.getWriter();
    const say = (line: string) => {
      console.log(line);
      writer.write(line + "\n").catch(() => {});
    };
    deployment.restart(say).then(
      () => say("restart done: every instance replaced"),
      (error) => say(`restart failed: ${(error as Error).message}`),
    ).finally(() => writer.close().catch(() => {}));
    return new Response(readable.pipeThrough(new TextEncoderStream()), {
      headers: { "content-type": "text/plain; charset=utf-8" },
    });
  });
  await Deno.writeTextFile(
    CONTROL,
    JSON.stringify({ port: control.addr.port, pid: Deno.pid }),
  );
  console.log(
    `Open ${deployment.url}/ (the auth app) or ${deployment.url}/live (the board).`,
  );
  console.log(
    "`deno task deploy:local restart` replaces the instances one at a time; Ctrl-C stops everything.",
  );
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    console.log("stopping");
    await control.shutdown();
    await deployment.stop();
    await Deno.remove(CONTROL).catch(() => {});
    Deno.exit(0);
  };
  Deno.addSignalListener("SIGINT", stop);
  Deno.addSignalListener("SIGTERM", stop);
}

if (import.meta.main) await main(Deno.args);
