/**
 * Forms and schemas shared by the form-validation benchmarks: a flat
 * 10-field form and a nested 30-field one (`a.b`, `a[0].b`), each with a zod
 * and a valibot schema, the object the form describes (built by hand, as a
 * baseline for the schema alone), and for Hono, whose form validator does not
 * nest, a flat-keyed schema of the same 30 fields.
 *
 * @module
 */
import * as z from "zod";
import * as v from "valibot";
import type { StandardSchemaV1 } from "@fetchkit/toolkit/form-validation";

/** One benchmark workload. */
export interface FormCase {
  name: string;
  entries: [string, string][];
  /** The object the entries describe, built by hand. */
  object: Record<string, unknown>;
  zod: StandardSchemaV1;
  valibot: StandardSchemaV1;
  /** The zod schema over the names as flat keys (Hono's form object). */
  zodFlatKeys: StandardSchemaV1;
}

const flatEntries: [string, string][] = [
  ["name", "Ada Lovelace"],
  ["email", "ada@example.com"],
  ["age", "36"],
  ["street", "12 St James's Square"],
  ["city", "London"],
  ["zip", "SW1Y 4JH"],
  ["country", "GB"],
  ["phone", "+44 20 7946 0000"],
  ["bio", "Wrote the first program for the Analytical Engine."],
  ["terms", "on"],
];

const flatZod = z.object({
  name: z.string().min(1).max(100),
  email: z.email(),
  age: z.coerce.number().int().min(0),
  street: z.string().max(200),
  city: z.string().min(1).max(100),
  zip: z.string().max(20),
  country: z.string().length(2),
  phone: z.string().max(30),
  bio: z.string().max(2000),
  terms: z.literal("on"),
});

const flatValibot = v.object({
  name: v.pipe(v.string(), v.minLength(1), v.maxLength(100)),
  email: v.pipe(v.string(), v.email()),
  age: v.pipe(v.string(), v.toNumber(), v.integer(), v.minValue(0)),
  street: v.pipe(v.string(), v.maxLength(200)),
  city: v.pipe(v.string(), v.minLength(1), v.maxLength(100)),
  zip: v.pipe(v.string(), v.maxLength(20)),
  country: v.pipe(v.string(), v.length(2)),
  phone: v.pipe(v.string(), v.maxLength(30)),
  bio: v.pipe(v.string(), v.maxLength(2000)),
  terms: v.literal("on"),
});

const ITEMS = 6;
const nestedEntries: [string, string][] = [
  ["user.name", "Ada Lovelace"],
  ["user.email", "ada@example.com"],
  ["address.street", "12 St James's Square"],
  ["address.city", "London"],
  ["address.zip", "SW1Y 4JH"],
  ["address.country", "GB"],
  ...Array.from(
    { length: ITEMS },
    (_, i): [string, string][] => [
      [`items[${i}].sku`, `SKU-${i}`],
      [`items[${i}].qty`, String(i + 1)],
      [`items[${i}].note`, `note ${i}`],
    ],
  ).flat(),
  ["meta.source", "web"],
  ["meta.campaign", "spring"],
  ["meta.ref", "r-1"],
  ["meta.lang", "en"],
  ["meta.tz", "Europe/London"],
  ["meta.agent", "bench"],
];

const metaKeys = ["source", "campaign", "ref", "lang", "tz", "agent"];

const nestedZod = z.object({
  user: z.object({ name: z.string().min(1), email: z.email() }),
  address: z.object({
    street: z.string().max(200),
    city: z.string().min(1),
    zip: z.string().max(20),
    country: z.string().length(2),
  }),
  items: z.array(z.object({
    sku: z.string().min(1),
    qty: z.coerce.number().int().min(1),
    note: z.string().max(200),
  })).max(50),
  meta: z.object(
    Object.fromEntries(metaKeys.map((key) => [key, z.string().max(100)])),
  ),
});

const nestedValibot = v.object({
  user: v.object({
    name: v.pipe(v.string(), v.minLength(1)),
    email: v.pipe(v.string(), v.email()),
  }),
  address: v.object({
    street: v.pipe(v.string(), v.maxLength(200)),
    city: v.pipe(v.string(), v.minLength(1)),
    zip: v.pipe(v.string(), v.maxLength(20)),
    country: v.pipe(v.string(), v.length(2)),
  }),
  items: v.pipe(
    v.array(v.object({
      sku: v.pipe(v.string(), v.minLength(1)),
      qty: v.pipe(v.string(), v.toNumber(), v.integer(), v.minValue(1)),
      note: v.pipe(v.string(), v.maxLength(200)),
    })),
    v.maxLength(50),
  ),
  meta: v.object(
    Object.fromEntries(
      metaKeys.map((key) => [key, v.pipe(v.string(), v.maxLength(100))]),
    ),
  ),
});

const nestedFlatKeysZod = z.object({
  "user.name": z.string().min(1),
  "user.email": z.email(),
  "address.street": z.string().max(200),
  "address.city": z.string().min(1),
  "address.zip": z.string().max(20),
  "address.country": z.string().length(2),
  ...Object.fromEntries(
    Array.from({ length: ITEMS }, (_, i) => [
      [`items[${i}].sku`, z.string().min(1)],
      [`items[${i}].qty`, z.coerce.number().int().min(1)],
      [`items[${i}].note`, z.string().max(200)],
    ]).flat(),
  ),
  ...Object.fromEntries(
    metaKeys.map((key) => [`meta.${key}`, z.string().max(100)]),
  ),
});

function flatObject(entries: [string, string][]): Record<string, unknown> {
  return Object.fromEntries(entries);
}

function nestedObject(): Record<string, unknown> {
  const get = (name: string) => nestedEntries.find(([n]) => n === name)![1];
  return {
    user: { name: get("user.name"), email: get("user.email") },
    address: {
      street: get("address.street"),
      city: get("address.city"),
      zip: get("address.zip"),
      country: get("address.country"),
    },
    items: Array.from({ length: ITEMS }, (_, i) => ({
      sku: get(`items[${i}].sku`),
      qty: get(`items[${i}].qty`),
      note: get(`items[${i}].note`),
    })),
    meta: Object.fromEntries(metaKeys.map((key) => [key, get(`meta.${key}`)])),
  };
}

/** The two workloads. */
export const FORM_CASES: FormCase[] = [
  {
    name: "flat, 10 fields",
    entries: flatEntries,
    object: flatObject(flatEntries),
    zod: flatZod,
    valibot: flatValibot,
    zodFlatKeys: flatZod,
  },
  {
    name: "nested, 30 fields",
    entries: nestedEntries,
    object: nestedObject(),
    zod: nestedZod,
    valibot: nestedValibot,
    zodFlatKeys: nestedFlatKeysZod,
  },
];

/** The entries as `FormData`. */
export function toFormData(entries: [string, string][]): FormData {
  const form = new FormData();
  for (const [name, value] of entries) form.append(name, value);
  return form;
}

/** The entries as an urlencoded body. */
export function toBody(entries: [string, string][]): string {
  return new URLSearchParams(entries).toString();
}
