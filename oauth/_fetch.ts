/**
 * Every request to the provider (discovery, token, userinfo, JWKS) goes
 * through one guarded `fetch`: redirects are never followed (a redirect
 * of the token request would re-send the code, the PKCE verifier and a
 * secret sent in the body to wherever it points), the answer's body is
 * capped, and one deadline covers the headers and the whole body. Each
 * failure is the provider's: a `502`.
 */
import { HttpError } from "../http_error/mod.ts";

/** The largest provider answer read: 1 MiB. */
export const MAX_PROVIDER_BODY_BYTES = 1024 * 1024;

/** How long a provider request may take, headers and body: 10 s. */
export const PROVIDER_TIMEOUT_MS = 10_000;

/** A 502: the provider could not be reached or answered nonsense. */
export function badGateway(message: string, cause?: unknown): HttpError {
  return new HttpError(502, `OAuth: ${message}`, { cause });
}

const NULL_BODY = new Set([101, 204, 205, 304]);

function nameOf(input: string | URL | Request): string {
  const url = input instanceof Request ? input.url : String(input);
  try {
    const parsed = new URL(url);
    return parsed.origin + parsed.pathname;
  } catch {
    return url;
  }
}

/**
 * `fetcher` guarded as the module docs say. The returned `fetch` answers
 * a `Response` whose body is already read (at most
 * {@linkcode MAX_PROVIDER_BODY_BYTES}), or throws a `502`.
 */
export function guardFetch(
  fetcher: typeof fetch,
  timeoutMs: number = PROVIDER_TIMEOUT_MS,
): typeof fetch {
  return async (input, init = {}) => {
    const what = nameOf(input);
    const deadline = AbortSignal.timeout(timeoutMs);
    const signal = init.signal
      ? AbortSignal.any([init.signal, deadline])
      : deadline;
    let response: Response;
    try {
      response = await fetcher(input, { ...init, redirect: "manual", signal });
    } catch (error) {
      throw badGateway(
        deadline.aborted
          ? `${what} did not answer within ${timeoutMs / 1000} s`
          : `could not reach ${what}`,
        error,
      );
    }
    const status = response.status;
    if (
      response.type === "opaqueredirect" || (status >= 300 && status < 400)
    ) {
      await response.body?.cancel().catch(() => {});
      throw badGateway(
        `${what} answered a redirect (${
          status || "opaque"
        }); provider redirects are not followed`,
      );
    }
    if (status < 200 || status > 599) {
      // An opaque answer (status 0) from a custom fetch: nothing to read.
      await response.body?.cancel().catch(() => {});
      throw badGateway(`${what} answered status ${status}`);
    }
    const declared = Number(response.headers.get("content-length"));
    if (declared > MAX_PROVIDER_BODY_BYTES) {
      await response.body?.cancel().catch(() => {});
      throw tooLarge(what);
    }
    const body = await readCapped(response, what, deadline, timeoutMs);
    return new Response(NULL_BODY.has(status) ? null : body, {
      status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}

function tooLarge(what: string): HttpError {
  return badGateway(
    `${what} answered more than ${MAX_PROVIDER_BODY_BYTES} bytes (1 MiB), the most read from a provider`,
  );
}

/** The body, read under the request's deadline and the size cap. */
async function readCapped(
  response: Response,
  what: string,
  deadline: AbortSignal,
  timeoutMs: number,
): Promise<Uint8Array<ArrayBuffer>> {
  if (response.body === null) return new Uint8Array(0);
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  // A fetch that ignores its signal (a custom one) is still cut off.
  let onAbort!: () => void;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () =>
      reject(
        badGateway(
          `${what} did not finish its answer within ${timeoutMs / 1000} s`,
        ),
      );
    if (deadline.aborted) onAbort();
    else deadline.addEventListener("abort", onAbort, { once: true });
  });
  aborted.catch(() => {});
  try {
    while (true) {
      let step: ReadableStreamReadResult<Uint8Array>;
      try {
        step = await Promise.race([reader.read(), aborted]);
      } catch (error) {
        if (error instanceof HttpError) throw error;
        throw badGateway(
          deadline.aborted
            ? `${what} did not finish its answer within ${timeoutMs / 1000} s`
            : `${what} broke off its answer`,
          error,
        );
      }
      if (step.done) break;
      size += step.value.byteLength;
      if (size > MAX_PROVIDER_BODY_BYTES) throw tooLarge(what);
      chunks.push(step.value);
    }
  } catch (error) {
    reader.cancel().catch(() => {});
    throw error;
  } finally {
    deadline.removeEventListener("abort", onAbort);
  }
  const body = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    body.set(chunk, at);
    at += chunk.byteLength;
  }
  return body;
}

/**
 * The answer's body as JSON, which must be an object (a list counts:
 * GitHub's `/user/emails`); anything else is a `502` naming `what`.
 */
export async function jsonObject(
  response: Response,
  what: string,
): Promise<Record<string, unknown>> {
  let value: unknown;
  try {
    value = JSON.parse(await response.text());
  } catch (error) {
    throw badGateway(`${what} answered ${response.status} without JSON`, error);
  }
  if (typeof value !== "object" || value === null) {
    throw badGateway(
      `${what} answered ${response.status} with ${
        value === null ? "null" : typeof value
      }, not a JSON object`,
    );
  }
  return value as Record<string, unknown>;
}
