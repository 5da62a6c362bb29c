/**
 * {@linkcode createS3FileStorage}: files in a bucket of any S3-compatible
 * object store (AWS S3, Cloudflare R2, MinIO, Ceph's RADOS Gateway), signed
 * with AWS Signature Version 4 on WebCrypto.
 *
 * @module
 */

import { HttpError } from "../http_error/mod.ts";
import { StoreUnavailableError } from "../store/errors.ts";
import { checkTimeout } from "../store/timeout.ts";
import { countStoreCall, markTimedOut } from "../store/observe.ts";
import { storeCallHook } from "../store/trace.ts";
import { unrefTimer } from "../runtime/timer.ts";
import {
  checkKey,
  checkLimit,
  checkNewKey,
  checkType,
  type FileStorage,
  type FileStorageEntry,
  type FileStorageListOptions,
  type FileStorageListResult,
  type FileStorageSetOptions,
} from "./types.ts";
import {
  lastModifiedOf,
  limitStream,
  nameOf,
  StoredFile,
  streamOf,
  typeOf,
} from "./_stored_file.ts";

import { encodeRfc3986, sha256Hex, type Signable, Signer } from "./_sigv4.ts";
import { all, decodeXml, escapeXml, first } from "./_xml.ts";
import { takingLentChunks } from "./_lent.ts";

const OWNER = "createS3FileStorage()";
const STORE = "S3";
const MIB = 1024 * 1024;
/** S3's smallest part (all but the last), and its largest. */
const MIN_PART = 5 * MIB;
const MAX_PART = 5 * 1024 * MIB;
const MAX_PARTS = 10_000;
/** Largest error body read: S3's are under 1 KiB. */
const MAX_ERROR_BODY = 64 * 1024;
/**
 * Largest listing read: 1,000 keys of 1,024 bytes, URL-encoded, with
 * their details fit in about 4 MiB.
 */
const MAX_LIST_BODY = 8 * MIB;
/** Largest answer to starting or completing a multipart upload. */
const MAX_XML_BODY = MIB;
/** How many `HEAD`s `list()` sends at once to learn the types. */
const LIST_CONCURRENCY = 8;
/** Longest `presign()` expiry S3 accepts: 7 days. */
const MAX_EXPIRES = 7 * 24 * 3600;

/** Options of {@linkcode createS3FileStorage}. */
export interface S3FileStorageOptions {
  /**
   * The service's URL: `https://s3.us-east-1.amazonaws.com`,
   * `https://<account>.r2.cloudflarestorage.com`, `http://127.0.0.1:9000`.
   */
  endpoint: string;
  /** The bucket; it must exist (the app creates it). */
  bucket: string;
  /** The region signed for: `us-east-1`, or `auto` on R2. */
  region: string;
  /** The access key's id. */
  accessKeyId: string;
  /** The access key's secret. */
  secretAccessKey: string;
  /** A temporary credential's session token. */
  sessionToken?: string;
  /**
   * Address the bucket in the path (`endpoint/bucket/key`) instead of the
   * host name (`bucket.endpoint/key`). MinIO and Ceph usually need `true`.
   *
   * @default {false}
   */
  forcePathStyle?: boolean;
  /**
   * Bytes a file is sent in: a file up to this size goes up in one `PUT`,
   * a larger (or a stream that does not end by then) as a multipart upload
   * of parts this size, each sent as it fills. Memory use is about twice
   * this per upload in flight (the part being sent, the next one filling).
   * From 5 MiB to 5 GiB; a file can have at most 10,000 parts.
   *
   * @default {8 MiB}
   */
  partSize?: number;
  /**
   * Milliseconds to wait for each request's answer before the store counts
   * as down: a `StoreUnavailableError` (503). It covers the headers (for an
   * upload, after sending its body) and, where the storage reads the body
   * itself (errors, listings), the body too; while a `File` from `get()`
   * is read, the service may send nothing for at most this long.
   *
   * @default {30000}
   */
  timeout?: number;
}

/** Options of {@linkcode S3FileStorage.presign}. */
export interface PresignOptions {
  /** `GET` to download, `PUT` to upload the body of the request. */
  method: "GET" | "PUT";
  /** Seconds the URL works for: 1 to 604800 (7 days). */
  expiresIn: number;
  /**
   * `PUT`: the `Content-Type` the upload must carry, signed (another is
   * refused with 403), and stored. Default `application/octet-stream`, a
   * type browsers download rather than render: a holder of the URL cannot
   * upload `text/html` that a presigned `GET` would then serve inline.
   * `GET`: the `Content-Type` to answer with (`response-content-type`,
   * signed), whatever type was stored.
   */
  type?: string;
  /**
   * `PUT` only: the exact length in bytes the upload must have, signed
   * as `Content-Length` (a presigned `PUT` cannot carry an upper bound;
   * for "at most", use {@linkcode S3FileStorage.presignPost}).
   */
  size?: number;
  /**
   * `GET` only: answer with `Content-Disposition: attachment` (signed),
   * so browsers download instead of rendering; a string is the file name
   * to save as, `true` takes the key's last segment.
   */
  attachment?: boolean | string;
}

/** Options of {@linkcode S3FileStorage.presignPost}. */
export interface PresignPostOptions {
  /** Seconds the form works for: 1 to 604800 (7 days). */
  expiresIn: number;
  /** The most bytes the upload may have: 1 to 5 GiB. */
  maxBytes: number;
  /**
   * The `Content-Type` the upload must carry (a field of the form, in the
   * policy), and stored. Default `application/octet-stream`.
   */
  type?: string;
  /** The name `get()` gives the file back with. Default: the key. */
  name?: string;
}

/** A browser upload form: post `fields`, then the file as `file`, to `url`. */
export interface PresignedPost {
  /** Where the form posts to (the bucket's URL). */
  url: string;
  /** The fields to send before the file, as they are. */
  fields: Record<string, string>;
}

/** A {@linkcode FileStorage} on S3, which can also presign URLs. */
export interface S3FileStorage extends FileStorage {
  /**
   * A URL that reads (`GET`) or writes (`PUT`) `key` without credentials
   * until `expiresIn` seconds have passed: hand it to a browser to
   * download or upload directly. A URL that is changed or expired is
   * refused by the service (403). A `PUT` signs its `Content-Type` (and
   * its length with `size`); a `GET` can ask for a download
   * (`attachment`) and a type.
   */
  presign(key: string, options: PresignOptions): Promise<string>;
  /**
   * A browser upload form for `key` by `POST` (S3's POST policy): the
   * service refuses a file over `maxBytes` (400 `EntityTooLarge`), another
   * type, another key, and a form used after `expiresIn` seconds (403).
   */
  presignPost(key: string, options: PresignPostOptions): Promise<PresignedPost>;
}

/** Options of {@linkcode S3Error}. */
export interface S3ErrorOptions {
  /** The HTTP status the service answered. */
  status: number;
  /** The service's error code: `AccessDenied`, `NoSuchBucket`... */
  code: string;
  /** The key concerned, when there is one. */
  key?: string;
  /** The error behind this one. */
  cause?: unknown;
}

/**
 * The object store refused a request for a reason other than an outage:
 * wrong credentials (`InvalidAccessKeyId`, `SignatureDoesNotMatch`,
 * `AccessDenied`), a missing bucket (`NoSuchBucket`), a file over the
 * service's limits. It is the server's problem, not the client's: through
 * the router it answers `502 Bad Gateway`, with the message (which names
 * the operation, the key, the status and the service's code) logged and
 * hidden from the client. An outage (no answer, a timeout, a `5xx`, `429`
 * throttling) is a `StoreUnavailableError` (503) instead.
 *
 * @example
 * ```ts
 * import { S3Error } from "@fetchkit/toolkit/file-storage";
 *
 * const error = new S3Error("S3 refused to read \"a.txt\": 403 AccessDenied", {
 *   status: 403,
 *   code: "AccessDenied",
 *   key: "a.txt",
 * });
 * error.status; // 502
 * error.s3Status; // 403
 * ```
 */
export class S3Error extends HttpError {
  /** The HTTP status the service answered. */
  readonly s3Status: number;
  /** The service's error code. */
  readonly code: string;
  /** The key concerned, when there is one. */
  readonly key?: string;

  /**
   * Creates the error for a refused request.
   *
   * @param message What was refused, and why.
   * @param options The service's status and code.
   */
  constructor(message: string, options: S3ErrorOptions) {
    super(502, message, { expose: false, cause: options.cause });
    this.name = "S3Error";
    this.s3Status = options.status;
    this.code = options.code;
    this.key = options.key;
  }
}

/** What each credential problem means, for the message. */
const HINTS: Record<string, string> = {
  InvalidAccessKeyId: "the accessKeyId is not known to the service",
  SignatureDoesNotMatch: "check secretAccessKey (and region)",
  AccessDenied: "the credentials may not do this",
  NoSuchBucket: "create the bucket first",
  AuthorizationHeaderMalformed: "check region",
  Forbidden:
    "the credentials were refused (check accessKeyId, secretAccessKey and region)",
};

/**
 * The S3 API actions the storage calls, each counted under its name
 * (`store_operations_total{store="S3",operation="PutObject"}`).
 */
const OPERATIONS = {
  HeadObject: { store: STORE, what: "HeadObject" },
  GetObject: { store: STORE, what: "GetObject" },
  PutObject: { store: STORE, what: "PutObject" },
  DeleteObject: { store: STORE, what: "DeleteObject" },
  ListObjectsV2: { store: STORE, what: "ListObjectsV2" },
  CreateMultipartUpload: { store: STORE, what: "CreateMultipartUpload" },
  UploadPart: { store: STORE, what: "UploadPart" },
  CompleteMultipartUpload: { store: STORE, what: "CompleteMultipartUpload" },
  AbortMultipartUpload: { store: STORE, what: "AbortMultipartUpload" },
};

interface Call {
  /** The S3 action, for metrics. */
  operation: keyof typeof OPERATIONS;
  method: string;
  key?: string;
  query?: Record<string, string>;
  headers?: Record<string, string>;
  body?: Uint8Array;
  /** For messages: "read", "store", "list"... */
  what: string;
  /** Statuses that are answers, not errors (besides 2xx). */
  accept?: number[];
  /** The service may answer 200 with an `<Error>` body (completing an upload). */
  errorIn200?: boolean;
}

/**
 * Makes a {@linkcode FileStorage} on a bucket of an S3-compatible service.
 *
 * - `set()` sends a file of up to `partSize` bytes in one `PUT` with its
 *   length; a larger file, or a stream, goes up as a multipart upload:
 *   parts of `partSize` sent as they fill, so memory stays at about two
 *   parts whatever the file's size. When reading the source or sending a
 *   part fails (the client went away, the service is down), the upload is
 *   aborted so that no parts stay stored and billed; when the abort itself
 *   cannot reach the service, it is retried in the background (for up to
 *   ten minutes) until it can. A process that ends first leaves the parts:
 *   give the bucket a lifecycle rule (`AbortIncompleteMultipartUpload`,
 *   a day) as a backstop.
 * - `get()` asks for the file's size, type and name (`HEAD`) and returns a
 *   `File` whose bytes are fetched when read; `slice()` fetches only its
 *   range (`Range`). A read of a file replaced since `get()` throws (the
 *   `ETag` is checked with `If-Match`).
 * - `list()` pages with the last key as the cursor; S3 lists no types, so
 *   it asks for each listed file's type (`HEAD`, 8 at a time).
 * - The file name is kept as `x-amz-meta-name` (percent-encoded).
 * - Errors: no answer, a timeout (`timeout`), a `5xx` or throttling
 *   (`429`, `SlowDown`) is a `StoreUnavailableError`, which the router
 *   answers with `503` and `Retry-After`; a refusal (bad credentials, no
 *   such bucket) is an {@linkcode S3Error} (`502`).
 * - Metrics: each request is counted under its S3 action in
 *   `store_operations_total{store="S3",operation,outcome}` and
 *   `store_operation_duration_seconds` of `@fetchkit/toolkit/metrics`
 *   (`PutObject`, `GetObject`, `HeadObject`, `DeleteObject`,
 *   `ListObjectsV2`, `CreateMultipartUpload`, `UploadPart`,
 *   `CompleteMultipartUpload`, `AbortMultipartUpload`): `ok` for an
 *   answer (a `404` to `HEAD` or `DELETE` included), `timeout` when
 *   `timeout` passed, `unavailable` for the other outages above, `error`
 *   for a refusal (`403`, `404 NoSuchBucket`: the service is up, the
 *   credentials or the bucket are wrong). `presign()` and `presignPost()`
 *   sign in the process and send nothing, so nothing is counted. A
 *   `GetObject`'s duration ends with its headers; a body that stalls
 *   later fails the read, uncounted.
 *
 * Signed with AWS Signature Version 4 on WebCrypto (no SDK); bodies are
 * signed too (their SHA-256), except through presigned URLs. Runs on Deno,
 * Node >= 20 and Bun, and wherever `fetch` and `crypto.subtle` are.
 *
 * @example Store uploads in a bucket
 * ```ts ignore
 * import { createS3FileStorage } from "@fetchkit/toolkit/file-storage";
 *
 * const storage = createS3FileStorage({
 *   endpoint: "https://s3.eu-west-1.amazonaws.com",
 *   bucket: "my-app-uploads",
 *   region: "eu-west-1",
 *   accessKeyId: Deno.env.get("AWS_ACCESS_KEY_ID")!,
 *   secretAccessKey: Deno.env.get("AWS_SECRET_ACCESS_KEY")!,
 * });
 * await storage.set("avatars/1.png", new Blob([new Uint8Array(8)], { type: "image/png" }), {
 *   name: "me.png",
 * });
 * const url = await storage.presign("avatars/1.png", { method: "GET", expiresIn: 300 });
 * ```
 *
 * @example Options are checked when the storage is made
 * ```ts
 * import { createS3FileStorage } from "@fetchkit/toolkit/file-storage";
 *
 * try {
 *   createS3FileStorage({
 *     endpoint: "http://127.0.0.1:7480",
 *     bucket: "uploads",
 *     region: "us-east-1",
 *     accessKeyId: "key",
 *     secretAccessKey: "secret",
 *     partSize: 1024,
 *   });
 * } catch (error) {
 *   (error as Error).message; // "createS3FileStorage(): partSize must be from 5 MiB to 5 GiB, got 1024"
 * }
 * ```
 *
 * @param options Where the bucket is, and the credentials.
 * @returns The storage.
 * @throws {TypeError} When an option is missing or out of range.
 */
export function createS3FileStorage(
  options: S3FileStorageOptions,
): S3FileStorage {
  for (
    const name of [
      "endpoint",
      "bucket",
      "region",
      "accessKeyId",
      "secretAccessKey",
    ] as const
  ) {
    if (typeof options?.[name] !== "string" || options[name] === "") {
      throw new TypeError(`${OWNER}: ${name} must be a non-empty string`);
    }
  }
  const partSize = options.partSize ?? 8 * MIB;
  if (
    !Number.isInteger(partSize) || partSize < MIN_PART || partSize > MAX_PART
  ) {
    throw new TypeError(
      `${OWNER}: partSize must be from 5 MiB to 5 GiB, got ${partSize}`,
    );
  }
  const timeout = options.timeout === undefined
    ? 30_000
    : checkTimeout(options.timeout, OWNER);
  let endpoint: URL;
  try {
    endpoint = new URL(options.endpoint);
  } catch {
    throw new TypeError(
      `${OWNER}: endpoint must be a URL, got "${options.endpoint}"`,
    );
  }
  const bucket = options.bucket;
  const pathStyle = options.forcePathStyle ?? false;
  const origin = pathStyle
    ? endpoint.origin
    : `${endpoint.protocol}//${bucket}.${endpoint.host}`;
  const basePath = endpoint.pathname.replace(/\/+$/, "") +
    (pathStyle ? `/${encodeRfc3986(bucket)}` : "");
  const signer = new Signer({
    accessKeyId: options.accessKeyId,
    secretAccessKey: options.secretAccessKey,
    sessionToken: options.sessionToken,
    region: options.region,
    service: "s3",
  });

  /** The path as sent: `.`/`..` segments kept from URL parsers. */
  function pathOf(key: string | undefined): string {
    return key === undefined ? `${basePath}/` : `${basePath}/${encodeKey(key)}`;
  }

  /**
   * The path as signed: each segment encoded, `/` kept, as the service
   * computes it from the key it decoded.
   */
  function signedPathOf(key: string | undefined): string {
    return key === undefined
      ? `${basePath}/`
      : `${basePath}/${encodeRfc3986(key, true)}`;
  }

  /** One request, its status checked; its body left to the caller. */
  async function call(call: Call): Promise<Response> {
    return (await exchange(call, undefined)).response;
  }

  /**
   * One request whose answer is read here, at most `maxBytes` of it, with
   * the deadline over the whole exchange (headers and body).
   */
  async function callText(
    call: Call,
    maxBytes: number,
  ): Promise<{ response: Response; text: string }> {
    return await exchange(call, maxBytes) as {
      response: Response;
      text: string;
    };
  }

  /**
   * Sends `call`. The deadline (`timeout`) holds until the headers are in
   * and, for an error or when `maxBytes` is given, until the body is read
   * too: a service that stalls mid-body is an outage, never a hang. Error
   * bodies are read up to 64 KiB.
   */
  function exchange(
    call: Call,
    maxBytes: number | undefined,
  ): Promise<{ response: Response; text: string | undefined }> {
    // Counted for metrics by S3 action, and a child span when tracing's
    // store spans are on; presigning sends nothing and is neither.
    const operation = OPERATIONS[call.operation];
    const hook = storeCallHook();
    return countStoreCall(
      operation,
      hook === undefined
        ? () => exchangeNow(call, maxBytes)
        : () => hook(() => exchangeNow(call, maxBytes), operation),
    );
  }

  async function exchangeNow(
    call: Call,
    maxBytes: number | undefined,
  ): Promise<{ response: Response; text: string | undefined }> {
    const path = pathOf(call.key);
    const signedPath = signedPathOf(call.key);
    const query = call.query ?? {};
    const body = call.body;
    const payloadHash = body === undefined
      ? await sha256Hex("")
      : await sha256Hex(body);
    const request: Signable = {
      method: call.method,
      origin,
      path: signedPath,
      query,
      headers: call.headers ?? {},
      payloadHash,
    };
    // Checked here: a value no header can carry is this process's error
    // (a TypeError), not an outage of the service.
    const headers = new Headers(await signer.sign(request));
    const search = Object.keys(query).length === 0
      ? ""
      : `?${canonicalSearch(query)}`;
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), timeout);
    unrefTimer(timer);
    const about = `${call.what}${describeKey(call.key)}`;
    try {
      let response: Response;
      try {
        response = await fetch(`${origin}${path}${search}`, {
          method: call.method,
          headers,
          body: body as Uint8Array<ArrayBuffer> | undefined,
          signal: controller.signal,
          redirect: "manual",
        });
      } catch (error) {
        if (controller.signal.aborted) {
          throw markTimedOut(
            new StoreUnavailableError(
              STORE,
              `${STORE} did not answer within ${timeout} ms (${about})`,
              { cause: error },
            ),
          );
        }
        throw new StoreUnavailableError(
          STORE,
          `${STORE} could not be reached to ${about}: ${
            error instanceof Error ? error.message : String(error)
          }`,
          { cause: error },
        );
      }
      if (!response.ok && !call.accept?.includes(response.status)) {
        // What arrives in time, up to the cap: enough for the code.
        const read = await readCapped(
          response,
          MAX_ERROR_BODY,
          controller.signal,
        );
        throw errorFromXml(read.text, response.status, call);
      }
      if (maxBytes === undefined) return { response, text: undefined };
      const read = await readCapped(response, maxBytes, controller.signal);
      if (read.ended === "aborted") {
        throw markTimedOut(
          new StoreUnavailableError(
            STORE,
            `${STORE} did not finish answering within ${timeout} ms (${about})`,
          ),
        );
      }
      if (read.ended === "broken") {
        throw new StoreUnavailableError(
          STORE,
          `${STORE}'s answer broke off (${about})`,
          { cause: read.error },
        );
      }
      if (read.ended === "over") {
        throw new S3Error(
          `${STORE}'s answer to ${about} is over ${maxBytes} bytes`,
          { status: response.status, code: "ResponseTooLarge", key: call.key },
        );
      }
      // The service may answer 200 and still fail, in the body.
      if (call.errorIn200 && /<Error>/.test(read.text)) {
        throw errorFromXml(read.text, response.status, call);
      }
      return { response, text: read.text };
    } finally {
      clearTimeout(timer);
    }
  }

  async function head(key: string): Promise<Response | null> {
    const response = await call({
      operation: "HeadObject",
      method: "HEAD",
      key,
      what: "read",
      accept: [404],
    });
    await response.body?.cancel();
    return response.status === 404 ? null : response;
  }

  // Multipart uploads whose abort could not reach the service, retried.
  const pendingAborts = new Map<string, { key: string; until: number }>();
  let abortTimer: ReturnType<typeof setTimeout> | undefined;

  async function abortUpload(key: string, uploadId: string): Promise<void> {
    try {
      const response = await call({
        operation: "AbortMultipartUpload",
        method: "DELETE",
        key,
        query: { uploadId },
        what: "abort the upload of",
        accept: [404],
      });
      await response.body?.cancel();
      pendingAborts.delete(uploadId);
    } catch {
      if (!pendingAborts.has(uploadId)) {
        pendingAborts.set(uploadId, { key, until: Date.now() + 600_000 });
      }
      scheduleAborts(1000);
    }
  }

  function scheduleAborts(delay: number): void {
    if (abortTimer !== undefined) return;
    abortTimer = setTimeout(async () => {
      abortTimer = undefined;
      for (const [uploadId, { key, until }] of [...pendingAborts]) {
        if (Date.now() > until) pendingAborts.delete(uploadId);
        else await abortUpload(key, uploadId);
      }
      if (pendingAborts.size > 0) scheduleAborts(Math.min(delay * 2, 30_000));
    }, delay);
    unrefTimer(abortTimer);
  }

  async function putOnce(
    key: string,
    body: Uint8Array,
    metaHeaders: Record<string, string>,
  ): Promise<void> {
    const response = await call({
      operation: "PutObject",
      method: "PUT",
      key,
      body,
      headers: metaHeaders,
      what: "store",
    });
    await response.body?.cancel();
  }

  async function putMultipart(
    key: string,
    reader: PartReader,
    firstPart: Uint8Array,
    metaHeaders: Record<string, string>,
  ): Promise<void> {
    let uploadId: string | undefined;
    try {
      const { response: created, text } = await callText({
        operation: "CreateMultipartUpload",
        method: "POST",
        key,
        query: { uploads: "" },
        headers: metaHeaders,
        what: "start the upload of",
      }, MAX_XML_BODY);
      uploadId = first(text, "UploadId");
      if (uploadId === undefined) {
        throw new S3Error(
          `${STORE} started an upload of "${key}" without an UploadId`,
          { status: created.status, code: "NoUploadId", key },
        );
      }
    } catch (error) {
      await reader.cancel(error);
      throw error;
    }
    const id = uploadId;
    const etags: string[] = [];
    let sending: Promise<void> | undefined;
    const send = async (number: number, part: Uint8Array) => {
      const response = await call({
        operation: "UploadPart",
        method: "PUT",
        key,
        query: { partNumber: String(number), uploadId: id },
        body: part,
        what: `send part ${number} of`,
      });
      await response.body?.cancel();
      const etag = response.headers.get("etag");
      if (etag === null) {
        throw new S3Error(
          `${STORE} took part ${number} of "${key}" without an ETag`,
          { status: response.status, code: "NoETag", key },
        );
      }
      etags[number - 1] = etag;
      // Sent: its buffer can hold a later part.
      reader.release(part);
    };
    try {
      let part: Uint8Array | null = firstPart;
      for (let number = 1; part !== null; number++) {
        if (number > MAX_PARTS) {
          throw new RangeError(
            `"${key}" is larger than ${MAX_PARTS} parts of ${partSize} bytes: raise partSize`,
          );
        }
        // One part is sent while the next one fills.
        await sending;
        sending = send(number, part);
        // A failed send is awaited below; keep it from being unhandled.
        sending.catch(() => {});
        part = await reader.next();
      }
      await sending;
      const body = new TextEncoder().encode(
        "<CompleteMultipartUpload>" +
          etags.map((etag, i) =>
            `<Part><PartNumber>${i + 1}</PartNumber><ETag>${
              escapeXml(etag)
            }</ETag></Part>`
          ).join("") + "</CompleteMultipartUpload>",
      );
      await callText({
        operation: "CompleteMultipartUpload",
        method: "POST",
        key,
        query: { uploadId: id },
        body,
        headers: { "content-type": "application/xml" },
        what: "complete the upload of",
        errorIn200: true,
      }, MAX_XML_BODY);
    } catch (error) {
      await sending?.catch(() => {});
      await reader.cancel(error);
      await abortUpload(key, id);
      throw error;
    }
  }

  // PartReader copies each chunk at once, so lent chunks are safe.
  return takingLentChunks({
    async set(
      key: string,
      file: File | Blob | ReadableStream<Uint8Array>,
      setOptions?: FileStorageSetOptions,
    ): Promise<void> {
      checkNewKey(key, OWNER);
      const metaHeaders = {
        "content-type": typeOf(file, setOptions?.type, OWNER),
        "x-amz-meta-name": encodeURIComponent(
          nameOf(setOptions?.name, key, file),
        ),
        "x-amz-meta-modified": String(lastModifiedOf(file)),
      };
      const reader = new PartReader(streamOf(file), partSize);
      let firstPart: Uint8Array | null;
      try {
        firstPart = await reader.next();
      } catch (error) {
        await reader.cancel(error);
        throw error;
      }
      if (firstPart === null || reader.done) {
        // Fits one request, whose length is known.
        return putOnce(key, firstPart ?? new Uint8Array(), metaHeaders);
      }
      return putMultipart(key, reader, firstPart, metaHeaders);
    },

    async get(key: string): Promise<File | null> {
      checkKey(key, OWNER);
      if (unaddressable(key)) return null;
      const found = await head(key);
      if (found === null) return null;
      const size = Number(found.headers.get("content-length") ?? 0);
      const etag = found.headers.get("etag");
      // A File's own date when one was stored, else the upload's.
      const stored = Number(found.headers.get("x-amz-meta-modified"));
      const modified = found.headers.has("x-amz-meta-modified") &&
          Number.isFinite(stored)
        ? stored
        : Date.parse(found.headers.get("last-modified") ?? "");
      const open = async (start: number, end: number) => {
        const headers: Record<string, string> = {
          range: `bytes=${start}-${end - 1}`,
        };
        if (etag !== null) headers["if-match"] = etag;
        const response = await call({
          operation: "GetObject",
          method: "GET",
          key,
          headers,
          what: "read",
          accept: [404, 412],
        });
        if (response.status === 404 || response.status === 412) {
          await response.body?.cancel();
          throw new Error(
            `${STORE}: the file "${key}" was replaced or removed after get()`,
          );
        }
        // Bytes that stop coming are an outage, not a reader waiting forever.
        const body = idleLimited(
          response.body ?? new Blob().stream(),
          timeout,
          () =>
            new StoreUnavailableError(
              STORE,
              `${STORE} sent nothing for ${timeout} ms while reading "${key}"`,
            ),
        );
        // A 200 is the whole file: skip to the range.
        return response.status === 206
          ? limitStream(body, 0, end - start)
          : limitStream(body, start, end - start);
      };
      return new StoredFile(open, {
        name: decodeName(found.headers.get("x-amz-meta-name"), key),
        type: found.headers.get("content-type") ?? "application/octet-stream",
        size,
        lastModified: Number.isNaN(modified) ? undefined : modified,
      });
    },

    async has(key: string): Promise<boolean> {
      checkKey(key, OWNER);
      if (unaddressable(key)) return false;
      return (await head(key)) !== null;
    },

    async remove(key: string): Promise<void> {
      checkKey(key, OWNER);
      if (unaddressable(key)) return;
      const response = await call({
        operation: "DeleteObject",
        method: "DELETE",
        key,
        what: "remove",
        accept: [404],
      });
      await response.body?.cancel();
    },

    async list(
      listOptions?: FileStorageListOptions,
    ): Promise<FileStorageListResult> {
      const limit = checkLimit(listOptions?.limit, OWNER);
      const query: Record<string, string> = {
        "list-type": "2",
        "max-keys": String(limit),
        "encoding-type": "url",
      };
      if (listOptions?.prefix) query.prefix = listOptions.prefix;
      if (listOptions?.cursor !== undefined) {
        query["start-after"] = listOptions.cursor;
      }
      const { text: xml } = await callText({
        operation: "ListObjectsV2",
        method: "GET",
        query,
        what: "list",
      }, MAX_LIST_BODY);
      const listed = all(xml, "Contents").map((contents) => ({
        key: decodeListedKey(first(contents, "Key") ?? ""),
        size: Number(first(contents, "Size") ?? 0),
      }));
      const files: FileStorageEntry[] = [];
      for (let i = 0; i < listed.length; i += LIST_CONCURRENCY) {
        const batch = listed.slice(i, i + LIST_CONCURRENCY);
        const heads = await Promise.all(batch.map(({ key }) => head(key)));
        batch.forEach(({ key, size }, j) => {
          const found = heads[j];
          // Removed since it was listed.
          if (found === null) return;
          files.push({
            key,
            size,
            type: found.headers.get("content-type") ??
              "application/octet-stream",
          });
        });
      }
      const truncated = first(xml, "IsTruncated") === "true";
      return truncated && listed.length > 0
        ? { files, cursor: listed.at(-1)!.key }
        : { files };
    },

    async presign(
      key: string,
      presignOptions: PresignOptions,
    ): Promise<string> {
      const method = presignOptions?.method;
      if (method !== "GET" && method !== "PUT") {
        throw new TypeError(
          `${OWNER}: presign() method must be "GET" or "PUT", got ${
            String(method)
          }`,
        );
      }
      if (method === "PUT") checkNewKey(key, OWNER);
      else checkKey(key, OWNER);
      const expiresIn = checkExpiry(presignOptions.expiresIn, "presign()");
      const { type, size, attachment } = presignOptions;
      if (type !== undefined) checkType(type, `${OWNER}: presign()`);
      const headers: Record<string, string> = {};
      const query: Record<string, string> = {};
      if (method === "PUT") {
        if (attachment !== undefined) {
          throw new TypeError(
            `${OWNER}: presign() attachment is for GET; a PUT stores the name with set() or presignPost()`,
          );
        }
        headers["content-type"] = type ?? "application/octet-stream";
        if (size !== undefined) {
          headers["content-length"] = String(
            checkBytes(size, 0, "presign() size"),
          );
        }
      } else {
        if (size !== undefined) {
          throw new TypeError(
            `${OWNER}: presign() size is for PUT (the length the upload must have)`,
          );
        }
        if (type !== undefined) query["response-content-type"] = type;
        if (attachment !== undefined && attachment !== false) {
          const name = attachment === true
            ? key.slice(key.lastIndexOf("/") + 1)
            : attachment;
          query["response-content-disposition"] = contentDisposition(name);
        }
      }
      return await signer.presign(
        { method, origin, path: pathOf(key), query, headers },
        expiresIn,
      );
    },

    async presignPost(
      key: string,
      postOptions: PresignPostOptions,
    ): Promise<PresignedPost> {
      checkNewKey(key, OWNER);
      const expiresIn = checkExpiry(postOptions?.expiresIn, "presignPost()");
      const maxBytes = checkBytes(
        postOptions.maxBytes,
        1,
        "presignPost() maxBytes",
      );
      const type = postOptions.type === undefined
        ? "application/octet-stream"
        : checkType(postOptions.type, `${OWNER}: presignPost()`);
      const fields: Record<string, string> = {
        key,
        "Content-Type": type,
        "x-amz-meta-name": encodeURIComponent(postOptions.name ?? key),
      };
      const signed = await signer.postPolicy(
        [
          { bucket },
          ...Object.entries(fields).map(([name, value]) => ({
            [name]: value,
          })),
          ["content-length-range", 0, maxBytes],
        ],
        expiresIn,
        new Date(),
      );
      return { url: `${origin}${basePath}/`, fields: { ...fields, ...signed } };
    },
  });
}

/**
 * `body`, erroring with `idle()` when the source gives nothing for
 * `idleMs` while the reader waits (a slow reader is never cut).
 */
function idleLimited(
  body: ReadableStream<Uint8Array>,
  idleMs: number,
  idle: () => Error,
): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const quiet = new Promise<"quiet">((resolve) => {
        timer = setTimeout(() => resolve("quiet"), idleMs);
        unrefTimer(timer);
      });
      try {
        const step = await Promise.race([reader.read(), quiet]);
        if (step === "quiet") {
          reader.cancel().catch(() => {});
          controller.error(idle());
        } else if (step.done) controller.close();
        else controller.enqueue(step.value);
      } catch (error) {
        controller.error(error);
      } finally {
        clearTimeout(timer);
      }
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  }, { highWaterMark: 0 });
}

/** How reading an answer ended. */
interface CappedRead {
  text: string;
  ended: "done" | "over" | "aborted" | "broken";
  error?: unknown;
}

/**
 * Reads `response`'s body as text, at most `maxBytes` of it: stops (and
 * cancels the rest) when there is more, or when `signal` aborts first,
 * keeping what arrived.
 */
async function readCapped(
  response: Response,
  maxBytes: number,
  signal: AbortSignal,
): Promise<CappedRead> {
  const body = response.body;
  if (body === null) return { text: "", ended: "done" };
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let onAbort = () => {};
  const aborted = new Promise<"aborted">((resolve) => {
    onAbort = () => resolve("aborted");
    if (signal.aborted) resolve("aborted");
    else signal.addEventListener("abort", onAbort, { once: true });
  });
  const text = () => {
    const joined = new Uint8Array(size);
    let at = 0;
    for (const chunk of chunks) {
      joined.set(chunk, at);
      at += chunk.length;
    }
    return new TextDecoder().decode(joined);
  };
  let ended: CappedRead["ended"] = "done";
  let error: unknown;
  try {
    for (;;) {
      const step = await Promise.race([reader.read(), aborted]);
      if (step === "aborted") {
        ended = "aborted";
        break;
      }
      if (step.done) break;
      const room = maxBytes - size;
      if (step.value.length > room) {
        chunks.push(step.value.slice(0, room));
        size = maxBytes;
        ended = "over";
        break;
      }
      chunks.push(step.value.slice());
      size += step.value.length;
    }
  } catch (caught) {
    // An abort can surface as the read's own error.
    ended = signal.aborted ? "aborted" : "broken";
    error = caught;
  } finally {
    signal.removeEventListener("abort", onAbort);
  }
  if (ended !== "done") reader.cancel().catch(() => {});
  return { text: text(), ended, error };
}

/** The error for a refused request: an outage, or an {@linkcode S3Error}. */
function errorFromXml(
  text: string,
  status: number,
  call: { what: string; key?: string },
): Error {
  // A HEAD's refusal has no body to read a code from.
  const code = first(text, "Code") ??
    (status === 403
      ? "Forbidden"
      : status === 404
      ? "NotFound"
      : `HTTP${status}`);
  const message = first(text, "Message");
  const described = `${STORE} refused to ${call.what}${
    describeKey(call.key)
  }: ${status} ${code}${message ? ` (${message})` : ""}`;
  if (status >= 500 || status === 429 || code === "SlowDown") {
    return new StoreUnavailableError(STORE, described);
  }
  const hint = HINTS[code];
  return new S3Error(hint === undefined ? described : `${described}: ${hint}`, {
    status,
    code,
    key: call.key,
  });
}

function checkExpiry(expiresIn: unknown, what: string): number {
  if (
    typeof expiresIn !== "number" || !Number.isInteger(expiresIn) ||
    expiresIn < 1 || expiresIn > MAX_EXPIRES
  ) {
    throw new TypeError(
      `${OWNER}: ${what} expiresIn must be whole seconds from 1 to ${MAX_EXPIRES} (7 days), got ${
        String(expiresIn)
      }`,
    );
  }
  return expiresIn;
}

function checkBytes(value: unknown, min: number, what: string): number {
  if (
    typeof value !== "number" || !Number.isInteger(value) || value < min ||
    value > MAX_PART
  ) {
    throw new TypeError(
      `${OWNER}: ${what} must be a whole number of bytes from ${min} to ${MAX_PART} (5 GiB), got ${
        String(value)
      }`,
    );
  }
  return value;
}

/**
 * `attachment; filename="..."; filename*=UTF-8''...` (RFC 6266): an ASCII
 * name for old clients, the exact one for the rest.
 */
function contentDisposition(name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]|["\\]/g, "_");
  return `attachment; filename="${ascii}"; filename*=UTF-8''${
    encodeRfc3986(name)
  }`;
}

function describeKey(key: string | undefined): string {
  return key === undefined ? "" : ` "${key}"`;
}

/**
 * The keys `.` and `..`: a URL path cannot name them (parsers resolve
 * them away, and `%2E` is a dot to them too), so nothing is stored under
 * them; `set()` refuses them, and `get()`, `has()` and `remove()` answer
 * without asking.
 */
function unaddressable(key: string): boolean {
  return key === "." || key === "..";
}

/**
 * A key as a path: each segment percent-encoded. A key with a `.` or `..`
 * segment (which `set()` refuses now, but may have stored before) has its
 * `/`s encoded too (`%2F`), so that it is one segment no URL parser on the
 * way (fetch's own) resolves away; S3 decodes it back to the key.
 */
function encodeKey(key: string): string {
  const segments = key.split("/");
  if (!segments.some((segment) => segment === "." || segment === "..")) {
    return encodeRfc3986(key, true);
  }
  return encodeRfc3986(key);
}

function canonicalSearch(query: Record<string, string>): string {
  return Object.entries(query)
    .map(([name, value]) =>
      value === "" && name === "uploads"
        ? encodeRfc3986(name)
        : `${encodeRfc3986(name)}=${encodeRfc3986(value)}`
    )
    .join("&");
}

function decodeName(value: string | null, key: string): string {
  if (value === null) return key;
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/** A key from a listing with `encoding-type=url` (form encoding). */
function decodeListedKey(key: string): string {
  try {
    return decodeURIComponent(decodeXml(key).replace(/\+/g, " "));
  } catch {
    return key;
  }
}

/**
 * Reads a stream in parts of `size` bytes, copying each chunk as soon as it
 * arrives and never keeping one, so the source may lend its chunks (reuse
 * a chunk's buffer once the next is asked for; see `_lent.ts`). The first
 * part grows as it fills (a small file costs about its size, not `size`);
 * the next ones go into buffers of `size` that are used again once
 * {@linkcode PartReader.release}d, so a long upload holds two part buffers
 * (the one being sent, the one filling) and leaves no garbage behind. `done`
 * is true once the source ended and everything was handed out, so a caller
 * can tell a first part that is the whole file.
 */
class PartReader {
  #reader: ReadableStreamDefaultReader<Uint8Array>;
  #size: number;
  /** Bytes read past the last part, copied. */
  #left: Uint8Array | undefined;
  #ended = false;
  #first = true;
  #pool: Uint8Array[] = [];

  constructor(stream: ReadableStream<Uint8Array>, size: number) {
    this.#reader = stream.getReader();
    this.#size = size;
  }

  get done(): boolean {
    return this.#ended && this.#left === undefined;
  }

  /** The next part, `null` at the end; the last part may be shorter. */
  async next(): Promise<Uint8Array | null> {
    if (this.done) return null;
    let buffer: Uint8Array;
    if (this.#first) {
      this.#first = false;
      buffer = new Uint8Array(Math.min(64 * 1024, this.#size));
    } else {
      buffer = this.#pool.pop() ?? new Uint8Array(this.#size);
    }
    let length = 0;
    while (length < this.#size) {
      let chunk = this.#left;
      this.#left = undefined;
      if (chunk === undefined) {
        if (this.#ended) break;
        const { value, done } = await this.#reader.read();
        if (done) {
          this.#ended = true;
          break;
        }
        chunk = value;
      }
      const take = Math.min(chunk.length, this.#size - length);
      if (length + take > buffer.length) {
        // The first part grows by doubling, up to the part size.
        const grown = new Uint8Array(
          Math.min(this.#size, Math.max(buffer.length * 2, length + take)),
        );
        grown.set(buffer.subarray(0, length));
        buffer = grown;
      }
      buffer.set(chunk.subarray(0, take), length);
      length += take;
      // A copy: a lent chunk's buffer is read into again.
      if (take < chunk.length) this.#left = chunk.slice(take);
    }
    if (length === 0) {
      if (buffer.length === this.#size) this.#pool.push(buffer);
      return null;
    }
    return buffer.subarray(0, length);
  }

  /** Gives a sent part's buffer back for the next parts. */
  release(part: Uint8Array): void {
    if (part.buffer.byteLength === this.#size && this.#pool.length < 2) {
      this.#pool.push(new Uint8Array(part.buffer as ArrayBuffer));
    }
  }

  async cancel(reason: unknown): Promise<void> {
    await this.#reader.cancel(reason).catch(() => {});
  }
}
