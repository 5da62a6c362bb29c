/**
 * AWS Signature Version 4 on WebCrypto, for S3: signed request headers and
 * presigned URLs. Only what S3 needs: the canonical URI is the path as
 * sent (S3 does not normalize it), and every query value is encoded here.
 *
 * @module
 */

/** Who signs, and where. */
export interface SigningCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
  region: string;
  service: string;
}

/** The hash S3 accepts in place of a body's when the body is not signed. */
export const UNSIGNED_PAYLOAD = "UNSIGNED-PAYLOAD";

const encoder = new TextEncoder();

/** RFC 3986 encoding of everything but unreserved characters (and `/`). */
export function encodeRfc3986(value: string, keepSlash = false): string {
  let out = "";
  for (const byte of encoder.encode(value)) {
    if (
      (byte >= 0x41 && byte <= 0x5a) || (byte >= 0x61 && byte <= 0x7a) ||
      (byte >= 0x30 && byte <= 0x39) || byte === 0x2d || byte === 0x2e ||
      byte === 0x5f || byte === 0x7e || (keepSlash && byte === 0x2f)
    ) {
      out += String.fromCharCode(byte);
    } else {
      out += "%" + byte.toString(16).toUpperCase().padStart(2, "0");
    }
  }
  return out;
}

function hex(bytes: ArrayBuffer): string {
  return Array.from(
    new Uint8Array(bytes),
    (byte) => byte.toString(16).padStart(2, "0"),
  ).join("");
}

/** SHA-256 of `data`, in hex. */
export async function sha256Hex(data: Uint8Array | string): Promise<string> {
  const bytes = typeof data === "string" ? encoder.encode(data) : data;
  return hex(
    await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>),
  );
}

async function hmac(key: BufferSource, data: string): Promise<ArrayBuffer> {
  const cryptoKey = await crypto.subtle.importKey(
    "raw",
    key,
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  return crypto.subtle.sign("HMAC", cryptoKey, encoder.encode(data));
}

/** `20240102T030405Z` */
function amzDate(now: Date): string {
  return now.toISOString().replace(/[-:]/g, "").replace(/\.\d{3}/, "");
}

/** What a signature is made of, besides the credentials. */
export interface Signable {
  method: string;
  /** Scheme, host and port. */
  origin: string;
  /** Already encoded, as it will be sent. */
  path: string;
  /** Unencoded names and values. */
  query: Record<string, string>;
  /** Lower-case names; `host` is added. */
  headers: Record<string, string>;
  payloadHash: string;
}

/** Signs with keys derived per day, cached: one HMAC chain a day. */
export class Signer {
  #credentials: SigningCredentials;
  #keys = new Map<string, Promise<ArrayBuffer>>();

  constructor(credentials: SigningCredentials) {
    this.#credentials = credentials;
  }

  #signingKey(date: string): Promise<ArrayBuffer> {
    let key = this.#keys.get(date);
    if (key === undefined) {
      const { secretAccessKey, region, service } = this.#credentials;
      key = (async () => {
        const kDate = await hmac(
          encoder.encode(`AWS4${secretAccessKey}`),
          date,
        );
        const kRegion = await hmac(kDate, region);
        const kService = await hmac(kRegion, service);
        return hmac(kService, "aws4_request");
      })();
      this.#keys.clear();
      this.#keys.set(date, key);
    }
    return key;
  }

  async #signature(
    request: Signable,
    time: string,
    signedHeaders: Record<string, string>,
  ): Promise<{ signature: string; signedNames: string }> {
    const date = time.slice(0, 8);
    const { region, service } = this.#credentials;
    const names = Object.keys(signedHeaders).sort();
    const canonicalRequest = [
      request.method,
      request.path,
      canonicalQuery(request.query),
      names.map((name) => `${name}:${signedHeaders[name].trim()}\n`).join(""),
      names.join(";"),
      request.payloadHash,
    ].join("\n");
    const stringToSign = [
      "AWS4-HMAC-SHA256",
      time,
      `${date}/${region}/${service}/aws4_request`,
      await sha256Hex(canonicalRequest),
    ].join("\n");
    const signature = hex(
      await hmac(await this.#signingKey(date), stringToSign),
    );
    return { signature, signedNames: names.join(";") };
  }

  /**
   * The form fields of a browser upload by `POST` (S3's POST policy): the
   * policy lists `conditions` (plus the signing fields) and expires after
   * `expiresIn` seconds.
   */
  async postPolicy(
    conditions: unknown[],
    expiresIn: number,
    now: Date,
  ): Promise<Record<string, string>> {
    const time = amzDate(now);
    const date = time.slice(0, 8);
    const { accessKeyId, region, service, sessionToken } = this.#credentials;
    const fields: Record<string, string> = {
      "X-Amz-Algorithm": "AWS4-HMAC-SHA256",
      "X-Amz-Credential":
        `${accessKeyId}/${date}/${region}/${service}/aws4_request`,
      "X-Amz-Date": time,
    };
    if (sessionToken !== undefined) {
      fields["X-Amz-Security-Token"] = sessionToken;
    }
    const policy = JSON.stringify({
      expiration: new Date(now.getTime() + expiresIn * 1000).toISOString(),
      conditions: [
        ...conditions,
        ...Object.entries(fields).map(([name, value]) => ({ [name]: value })),
      ],
    });
    let binary = "";
    for (const byte of encoder.encode(policy)) {
      binary += String.fromCharCode(byte);
    }
    const encoded = btoa(binary);
    const signature = hex(await hmac(await this.#signingKey(date), encoded));
    return { ...fields, Policy: encoded, "X-Amz-Signature": signature };
  }

  /**
   * The headers to send: `request.headers` plus `x-amz-date`,
   * `x-amz-content-sha256`, the session token and `authorization`.
   */
  async sign(
    request: Signable,
    now: Date = new Date(),
  ): Promise<Record<string, string>> {
    const time = amzDate(now);
    const headers: Record<string, string> = {
      ...request.headers,
      "x-amz-date": time,
      "x-amz-content-sha256": request.payloadHash,
    };
    if (this.#credentials.sessionToken !== undefined) {
      headers["x-amz-security-token"] = this.#credentials.sessionToken;
    }
    const { signature, signedNames } = await this.#signature(request, time, {
      ...headers,
      host: new URL(request.origin).host,
    });
    const { accessKeyId, region, service } = this.#credentials;
    headers.authorization = `AWS4-HMAC-SHA256 Credential=${accessKeyId}/${
      time.slice(0, 8)
    }/${region}/${service}/aws4_request, SignedHeaders=${signedNames}, Signature=${signature}`;
    return headers;
  }

  /**
   * A URL that works until `expiresIn` seconds pass, for requests that
   * carry `request.headers` (lower-case names) with exactly those values:
   * they are signed too.
   */
  async presign(
    request: Omit<Signable, "headers" | "payloadHash"> & {
      headers?: Record<string, string>;
    },
    expiresIn: number,
    now: Date = new Date(),
  ): Promise<string> {
    const time = amzDate(now);
    const { accessKeyId, region, service, sessionToken } = this.#credentials;
    const signed = {
      ...request.headers,
      host: new URL(request.origin).host,
    };
    const query: Record<string, string> = {
      ...request.query,
      "X-Amz-Algorithm": "AWS4-HMAC-SHA256",
      "X-Amz-Credential": `${accessKeyId}/${
        time.slice(0, 8)
      }/${region}/${service}/aws4_request`,
      "X-Amz-Date": time,
      "X-Amz-Expires": String(expiresIn),
      "X-Amz-SignedHeaders": Object.keys(signed).sort().join(";"),
    };
    if (sessionToken !== undefined) {
      query["X-Amz-Security-Token"] = sessionToken;
    }
    const { signature } = await this.#signature(
      { ...request, query, headers: {}, payloadHash: UNSIGNED_PAYLOAD },
      time,
      signed,
    );
    query["X-Amz-Signature"] = signature;
    return `${request.origin}${request.path}?${canonicalQuery(query)}`;
  }
}

/** Query names and values encoded and sorted, as signed and as sent. */
export function canonicalQuery(query: Record<string, string>): string {
  return Object.entries(query)
    .map(([name, value]) => [encodeRfc3986(name), encodeRfc3986(value)])
    .sort(([a, x], [b, y]) =>
      a < b ? -1 : a > b ? 1 : x < y ? -1 : x > y ? 1 : 0
    )
    .map(([name, value]) => `${name}=${value}`)
    .join("&");
}
