/**
 * Test helper: a throwaway Ceph with an S3 gateway on 127.0.0.1. One
 * monitor, one OSD on `memstore` (its objects in memory) and `radosgw`,
 * each started in the foreground (`-f`) and stopped by its PID, in a temp
 * folder that is removed at the end; about 12 s to start. Authentication
 * between the daemons is off (`auth ... = none`), and the monitor speaks
 * `crc secure` (without it radosgw loops on `get_initial_auth_request
 * returned -13`). An S3 user with known keys is made with `radosgw-admin`.
 *
 * Written with `node:` APIs only, so that tests using it run on Deno, Node
 * and Bun (see `_tools/runtimes/`). Debian: `apt-get install radosgw
 * ceph-mon ceph-osd`. Missing binaries fail under `CI` or
 * `TOOLKIT_REQUIRE_ALL`, else the tests skip with a notice
 * ({@linkcode cephOrSkip}).
 *
 * A program (the uploads example, a benchmark) can run one with
 * `deno run --allow-all _tools/ceph_run.ts`: it prints the endpoint and
 * keys, and stops on Ctrl-C.
 *
 * @module
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { Signer } from "../file_storage/_sigv4.ts";

const BINARIES = [
  "ceph-mon",
  "ceph-osd",
  "radosgw",
  "radosgw-admin",
  "ceph",
  "monmaptool",
];

/** A running Ceph with its S3 gateway. */
export interface Ceph {
  /** The gateway's URL: `http://127.0.0.1:<port>`. */
  endpoint: string;
  /** Any region is accepted; this is what tests sign for. */
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** The gateway's PID (it changes when the gateway is started again). */
  readonly gatewayPid: number;
  /** Makes a bucket (S3 `PUT /bucket`). */
  createBucket(name: string): Promise<void>;
  /** The multipart uploads that are started and neither completed nor aborted. */
  listMultipartUploads(bucket: string): Promise<string[]>;
  /** Stops the gateway (SIGKILL, as a crash): requests are refused. */
  stopGateway(): Promise<void>;
  /** Starts the gateway again on the same port; resolves once it answers. */
  startGateway(): Promise<void>;
  /** Runs `radosgw-admin` with these arguments; its output. */
  admin(args: string[]): Promise<string>;
  /** Stops every daemon and removes the folder. */
  stop(): Promise<void>;
}

/** The folder holding the Ceph binaries, or `undefined` when one is missing. */
export function findCeph(): string | undefined {
  for (const dir of (process.env.PATH ?? "").split(":")) {
    if (dir !== "" && BINARIES.every((name) => existsSync(join(dir, name)))) {
      return dir;
    }
  }
  return undefined;
}

/**
 * Starts Ceph when its binaries are installed; otherwise `undefined` after
 * a one-line notice, or an error under `CI` or `TOOLKIT_REQUIRE_ALL`.
 */
export async function cephOrSkip(what: string): Promise<Ceph | undefined> {
  if (findCeph() === undefined) {
    if (process.env.CI || process.env.TOOLKIT_REQUIRE_ALL) {
      throw new Error(
        "Ceph (radosgw, ceph-mon, ceph-osd) is not installed, and CI or TOOLKIT_REQUIRE_ALL is set",
      );
    }
    console.log(
      `skipping ${what}: Ceph (radosgw, ceph-mon, ceph-osd) is not installed`,
    );
    return undefined;
  }
  return await startCeph();
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

function run(bin: string, args: string[], timeoutMs = 60_000): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      bin,
      args,
      { timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error) {
          reject(
            new Error(
              `${bin} ${args.join(" ")} failed: ${error.message}\n${stderr}`,
            ),
          );
        } else resolve(String(stdout));
      },
    );
  });
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) {
    return Promise.resolve();
  }
  return new Promise((resolve) => child.once("exit", () => resolve()));
}

async function kill(
  child: ChildProcess,
  signal: "SIGTERM" | "SIGKILL",
): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill(signal);
  const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
  await exited(child);
  clearTimeout(timer);
}

/** Options of {@linkcode startCeph}. */
export interface StartCephOptions {
  /**
   * Bytes the OSD may hold in memory. Default 3 GiB. Removed objects are
   * freed by the gateway's garbage collector within seconds (set so here;
   * Ceph's default waits two hours, and a full OSD blocks every write).
   */
  memstoreBytes?: number;
}

/** Starts a monitor, an OSD and the gateway; resolves once S3 answers. */
export async function startCeph(options: StartCephOptions = {}): Promise<Ceph> {
  const bin = findCeph();
  if (bin === undefined) throw new Error("Ceph is not installed");
  const dir = mkdtempSync(join(tmpdir(), "fetchkit-ceph-"));
  for (const sub of ["run", "log", "mon", "osd/0", "rgw"]) {
    mkdirSync(join(dir, sub), { recursive: true });
  }
  const monPort = await freePort();
  const fsid = crypto.randomUUID();
  const conf = join(dir, "ceph.conf");
  writeFileSync(
    conf,
    `[global]
fsid = ${fsid}
mon host = v2:127.0.0.1:${monPort}
mon initial members = a
auth cluster required = none
auth service required = none
auth client required = none
ms mon client mode = crc secure
osd objectstore = memstore
memstore device bytes = ${options.memstoreBytes ?? 3 * 1024 ** 3}
osd pool default size = 1
osd pool default min size = 1
osd pool default pg num = 8
osd pool default pgp num = 8
osd pool default pg autoscale mode = off
mon allow pool size one = true
mon warn on pool no redundancy = false
osd crush chooseleaf type = 0
run dir = ${dir}/run
admin socket = ${dir}/run/$name.asok
log file = ${dir}/log/$name.log
pid file = ${dir}/run/$name.pid
mon data = ${dir}/mon/$id
osd data = ${dir}/osd/$id
keyring = ${dir}/keyring
osd max object name len = 256
osd max object namespace len = 64
[client.rgw.a]
rgw data = ${dir}/rgw
rgw gc obj min wait = 0
rgw gc processor period = 5
rgw gc processor max time = 5
`,
  );
  const children: ChildProcess[] = [];
  let gateway: ChildProcess | undefined;
  const daemon = (name: string, args: string[]) => {
    const child = spawn(join(bin, name), ["-c", conf, "-f", ...args], {
      stdio: "ignore",
    });
    children.push(child);
    return child;
  };
  const stop = async () => {
    // The gateway first, so that it does not wait on a gone OSD.
    for (const child of [...children].reverse()) await kill(child, "SIGTERM");
    rmSync(dir, { recursive: true, force: true });
  };
  // The gateway's port is chosen just before it starts (and again when
  // another process took it meanwhile: the monitor and the OSD take ~10 s
  // to come up, and test runs on other runtimes start gateways too).
  let rgwPort = 0;
  let endpoint = "";
  const waitForGateway = async () => {
    const started = Date.now();
    while (true) {
      try {
        const response = await fetch(endpoint, {
          signal: AbortSignal.timeout(1000),
        });
        await response.body?.cancel();
        if (response.ok) return;
      } catch {
        // not listening yet
      }
      if (gateway?.exitCode !== null && gateway?.exitCode !== undefined) {
        throw new Error(
          `radosgw exited: ${tail(join(dir, "log/client.rgw.a.log"))}`,
        );
      }
      if (Date.now() - started > 90_000) {
        throw new Error(
          `radosgw did not answer within 90 s: ${
            tail(join(dir, "log/client.rgw.a.log"))
          }`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  };
  const launchGateway = () => {
    gateway = daemon("radosgw", [
      "-n",
      "client.rgw.a",
      `--rgw_frontends=beast endpoint=127.0.0.1:${rgwPort}`,
    ]);
    return waitForGateway();
  };
  const firstGateway = async () => {
    for (let attempt = 1;; attempt++) {
      rgwPort = await freePort();
      endpoint = `http://127.0.0.1:${rgwPort}`;
      try {
        return await launchGateway();
      } catch (error) {
        const taken = String(error).includes("Address already in use");
        if (!taken || attempt === 3) throw error;
      }
    }
  };
  const accessKeyId = "FETCHKIT" +
    crypto.randomUUID().replace(/-/g, "").slice(0, 12).toUpperCase();
  const secretAccessKey = crypto.randomUUID() + crypto.randomUUID();
  try {
    await run(join(bin, "monmaptool"), [
      "--create",
      "--fsid",
      fsid,
      "--addv",
      "a",
      `[v2:127.0.0.1:${monPort}]`,
      join(dir, "monmap"),
    ]);
    await run(join(bin, "ceph-mon"), [
      "-c",
      conf,
      "--mkfs",
      "-i",
      "a",
      "--monmap",
      join(dir, "monmap"),
    ]);
    daemon("ceph-mon", ["-i", "a"]);
    await run(join(bin, "ceph"), [
      "-c",
      conf,
      "--connect-timeout",
      "30",
      "osd",
      "create",
    ]);
    await run(join(bin, "ceph-osd"), ["-c", conf, "-i", "0", "--mkfs"]);
    daemon("ceph-osd", ["-i", "0"]);
    await firstGateway();
    await run(join(bin, "radosgw-admin"), [
      "-c",
      conf,
      "user",
      "create",
      "--uid",
      "fetchkit",
      "--display-name",
      "fetchkit tests",
      "--access-key",
      accessKeyId,
      "--secret-key",
      secretAccessKey,
    ]);
  } catch (error) {
    await stop();
    throw error;
  }
  const region = "us-east-1";
  const signer = new Signer({
    accessKeyId,
    secretAccessKey,
    region,
    service: "s3",
  });
  const signed = async (
    method: string,
    path: string,
    query: Record<string, string> = {},
  ) => {
    const headers = await signer.sign({
      method,
      origin: endpoint,
      path,
      query,
      headers: {},
      payloadHash:
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    });
    const search = Object.entries(query).map(([k, v]) =>
      v === "" ? k : `${k}=${encodeURIComponent(v)}`
    ).join("&");
    const response = await fetch(
      `${endpoint}${path}${search ? `?${search}` : ""}`,
      { method, headers },
    );
    const text = await response.text();
    if (!response.ok) {
      throw new Error(`${method} ${path}: ${response.status} ${text}`);
    }
    return text;
  };
  return {
    endpoint,
    region,
    accessKeyId,
    secretAccessKey,
    get gatewayPid() {
      return gateway?.pid ?? -1;
    },
    async createBucket(name) {
      await signed("PUT", `/${name}`);
    },
    async listMultipartUploads(bucket) {
      const xml = await signed("GET", `/${bucket}`, { uploads: "" });
      return [...xml.matchAll(/<UploadId>([^<]*)<\/UploadId>/g)].map((m) =>
        m[1]
      );
    },
    async stopGateway() {
      if (gateway !== undefined) {
        await kill(gateway, "SIGKILL");
        children.splice(children.indexOf(gateway), 1);
      }
    },
    startGateway: launchGateway,
    admin(args) {
      return run(join(bin, "radosgw-admin"), ["-c", conf, ...args]);
    },
    async stop() {
      await stop();
    },
  };
}

function tail(path: string): string {
  try {
    return readFileSync(path, "utf8").split("\n").slice(-15).join("\n");
  } catch {
    return "(no log)";
  }
}
