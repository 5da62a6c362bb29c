/**
 * What the "real app" scenarios of `_apps.ts` share across frameworks, so
 * every app renders the same page and validates the same order: the 30
 * rows of the page, the order body (about 1 KB of JSON), its valibot
 * schema and the equivalent JSON Schema (for Fastify's Ajv), the session
 * secret, and the security headers the frameworks without a middleware
 * for them set by hand.
 *
 * @module
 */
import * as v from "valibot";

/** The signing secret of every app's session cookie. */
export const SECRET = "bench-secret-0123456789abcdef0123456789abcdef";

/** A page row: every text field needs escaping. */
export interface Row {
  id: number;
  name: string;
  note: string;
}

/** The 30 rows of the signed-in page. */
export const ROWS: readonly Row[] = Array.from({ length: 30 }, (_, i) => ({
  id: i + 1,
  name: `<Item ${i + 1}> & "friends"`,
  note: `O'Brien's <b>note</b> #${i + 1}`,
}));

/** The text the page must hold (row 30's name, escaped). */
export const PAGE_CHECK = "&lt;Item 30&gt; &amp; ";

/** Escapes text for HTML content and quoted attributes. */
export function escapeText(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}
const ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

/**
 * The page by string building with `escapeText`, for the frameworks
 * without an escaping template tag (Elysia and Fastify here).
 */
export function renderPage(
  user: string,
  visits: number,
  nonce: string,
): string {
  let rows = "";
  for (const row of ROWS) {
    rows += `<tr><td>${row.id}</td><td>${escapeText(row.name)}</td><td>${
      escapeText(row.note)
    }</td></tr>`;
  }
  return `<!doctype html><html><head><title>Orders</title><script nonce="${nonce}">window.ready=1</script></head><body><h1>Hello, ${
    escapeText(user)
  }</h1><p>Visit ${visits}</p><table>${rows}</table></body></html>`;
}

/** The order every app validates: 1,025 bytes of JSON. */
export const ORDER = {
  customer: { name: "Ada Lovelace", email: "ada@example.com" },
  items: Array.from({ length: 19 }, (_, i) => ({
    sku: `SKU-${1000 + i}`,
    quantity: i + 1,
    price: 9.5 + i,
  })),
  note:
    "Leave the parcel with the neighbour at number 12 if nobody answers; ring twice.",
};

/** `ORDER` as sent. */
export const ORDER_BODY: string = JSON.stringify(ORDER);

const EMAIL = /^[^@\s]+@[^@\s]+$/;

/** The order's schema (valibot, a Standard Schema). */
export const OrderSchema = v.object({
  customer: v.object({
    name: v.pipe(v.string(), v.minLength(1), v.maxLength(100)),
    email: v.pipe(v.string(), v.regex(EMAIL)),
  }),
  items: v.pipe(
    v.array(v.object({
      sku: v.pipe(v.string(), v.minLength(1), v.maxLength(32)),
      quantity: v.pipe(v.number(), v.integer(), v.minValue(1)),
      price: v.pipe(v.number(), v.minValue(0)),
    })),
    v.minLength(1),
    v.maxLength(50),
  ),
  note: v.optional(v.pipe(v.string(), v.maxLength(500))),
});

/** The validated order. */
export type Order = v.InferOutput<typeof OrderSchema>;

/** The same schema in JSON Schema, for Ajv. */
export const ORDER_JSON_SCHEMA = {
  type: "object",
  required: ["customer", "items"],
  properties: {
    customer: {
      type: "object",
      required: ["name", "email"],
      properties: {
        name: { type: "string", minLength: 1, maxLength: 100 },
        email: { type: "string", pattern: EMAIL.source },
      },
    },
    items: {
      type: "array",
      minItems: 1,
      maxItems: 50,
      items: {
        type: "object",
        required: ["sku", "quantity", "price"],
        properties: {
          sku: { type: "string", minLength: 1, maxLength: 32 },
          quantity: { type: "integer", minimum: 1 },
          price: { type: "number", minimum: 0 },
        },
      },
    },
    note: { type: "string", maxLength: 500 },
  },
} as const;

/** The API's answer to a valid order. */
export function orderAnswer(
  order: Order,
): { ok: true; items: number; total: number } {
  let total = 0;
  for (const item of order.items) total += item.quantity * item.price;
  return { ok: true, items: order.items.length, total };
}

/** The text the API's answer must hold. */
export const ORDER_CHECK = '"total":';

/**
 * What `secureHeaders()` (ours, Hono's) sends by default, for the
 * frameworks that set them by hand; the CSP comes with a fresh nonce.
 */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "Cross-Origin-Opener-Policy": "same-origin",
  "Cross-Origin-Resource-Policy": "same-origin",
  "Origin-Agent-Cluster": "?1",
  "Referrer-Policy": "no-referrer",
  "X-Content-Type-Options": "nosniff",
  "X-DNS-Prefetch-Control": "off",
  "X-Download-Options": "noopen",
  "X-Frame-Options": "SAMEORIGIN",
  "X-Permitted-Cross-Domain-Policies": "none",
  "X-XSS-Protection": "0",
};

/** A fresh CSP nonce: 16 random bytes in base64. */
export function newNonce(): string {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  let text = "";
  for (const byte of bytes) text += String.fromCharCode(byte);
  return btoa(text);
}

/** The policy every app sends on the page. */
export function policy(nonce: string): string {
  return `default-src 'self'; script-src 'nonce-${nonce}'`;
}
