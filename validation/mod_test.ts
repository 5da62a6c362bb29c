// Portable tests of `@fetchkit/toolkit/validation` (no Deno API but
// Deno.test): every case with zod and with valibot.
import assert from "node:assert/strict";
import * as z from "zod";
import * as v from "valibot";
import {
  parseHeaders,
  parseJson,
  parseParams,
  parseQuery,
  readBody,
} from "@fetchkit/toolkit/validation";
import type { StandardSchemaV1 } from "@fetchkit/toolkit/validation";
import { watching } from "../form_data/_watchdog.ts";
import {
  assertHttpError,
  jsonRequest,
  repeatedStream,
  stalledStream,
  streamRequest,
} from "./_test_utils.ts";

interface Schemas {
  order: StandardSchemaV1<unknown, { items: { sku: string; qty: number }[] }>;
  any: StandardSchemaV1<unknown, unknown>;
  id: StandardSchemaV1<unknown, { id: number }>;
  page: StandardSchemaV1<unknown, { limit: number; tag: string[] }>;
  version: StandardSchemaV1<unknown, { "x-api-version": number }>;
  positive: StandardSchemaV1<unknown, number>;
}

const LIBS: [string, Schemas][] = [
  ["zod", {
    order: z.object({
      items: z.array(
        z.object({ sku: z.string(), qty: z.number().int().min(1) }),
      ),
    }),
    any: z.unknown(),
    id: z.object({ id: z.coerce.number().int() }),
    page: z.object({
      limit: z.coerce.number().int().min(1).max(100).default(20),
      tag: z.array(z.string()).default([]),
    }),
    version: z.object({ "x-api-version": z.coerce.number() }),
    positive: z.number().positive("must be positive"),
  }],
  ["valibot", {
    order: v.object({
      items: v.array(
        v.object({
          sku: v.string(),
          qty: v.pipe(v.number(), v.integer(), v.minValue(1)),
        }),
      ),
    }),
    any: v.unknown(),
    id: v.object({ id: v.pipe(v.string(), v.toNumber(), v.integer()) }),
    page: v.object({
      limit: v.optional(
        v.pipe(v.string(), v.toNumber(), v.integer(), v.minValue(1)),
        "20",
      ),
      tag: v.optional(v.array(v.string()), []),
    }),
    version: v.object({
      "x-api-version": v.pipe(v.string(), v.toNumber()),
    }),
    positive: v.pipe(v.number(), v.minValue(1, "must be positive")),
  }],
];

const ORDER = { items: [{ sku: "A", qty: 1 }, { sku: "B", qty: 2 }] };

for (const [lib, s] of LIBS) {
  Deno.test(`parseJson (${lib}): a valid body gives the schema's output`, async () => {
    const result = await parseJson(jsonRequest(JSON.stringify(ORDER)), s.order);
    assert.ok(result.success);
    assert.deepEqual(result.value, ORDER);
  });

  Deno.test(`parseJson (${lib}): refusals are keyed items[1].qty; root issues go to formErrors`, async () => {
    const body = { items: [{ sku: "A", qty: 1 }, { sku: "B", qty: 0 }] };
    const result = await parseJson(jsonRequest(JSON.stringify(body)), s.order);
    assert.equal(result.success, false);
    if (result.success) return;
    assert.deepEqual(Object.keys(result.fieldErrors), ["items[1].qty"]);
    assert.equal(result.formErrors.length, 0);
    assert.ok(result.issues.length >= 1);

    const root = await parseJson(jsonRequest("-3"), s.positive);
    assert.equal(root.success, false);
    if (!root.success) assert.deepEqual(root.formErrors, ["must be positive"]);
  });

  Deno.test(`parseJson (${lib}): 415 for a missing, non-JSON or non-UTF-8 content type`, async () => {
    const request = (type?: string) =>
      new Request("http://localhost/", {
        method: "POST",
        headers: type === undefined ? {} : { "content-type": type },
        body: "{}",
      });
    const noType = request();
    noType.headers.delete("content-type"); // the string body set text/plain
    await assertHttpError(
      parseJson(noType, s.any),
      415,
      /Content-Type is missing/,
    );
    await assertHttpError(
      parseJson(request("text/plain"), s.any),
      415,
      /"text\/plain" is not JSON: send application\/json/,
    );
    await assertHttpError(
      parseJson(request("application/jsonx"), s.any),
      415,
      /not JSON/,
    );
    await assertHttpError(
      parseJson(request("application/json; charset=iso-8859-1"), s.any),
      415,
      /charset "iso-8859-1" is refused: JSON must be UTF-8/,
    );
    for (
      const ok of [
        "application/json",
        "Application/JSON; charset=UTF-8",
        'application/json; charset="utf-8"',
        "application/vnd.api+json",
        "application/problem+json; charset=utf-8",
      ]
    ) {
      const result = await parseJson(request(ok), s.any);
      assert.ok(result.success, ok);
    }
  });

  Deno.test(`parseJson (${lib}): 413 past maxBytes, whatever Content-Length says`, async () => {
    const big = JSON.stringify({ pad: "x".repeat(2000) });
    // Declared past the limit: refused before reading.
    await assertHttpError(
      parseJson(jsonRequest(big, { "content-length": "2010" }), s.any, {
        maxBytes: 1000,
      }),
      413,
      /larger than maxBytes \(1000 bytes\): Content-Length declares 2010 bytes/,
    );
    // Chunked (no Content-Length).
    const chunked = repeatedStream(" ", 5000);
    await assertHttpError(
      parseJson(streamRequest(chunked.stream), s.any, { maxBytes: 1000 }),
      413,
      /^Request body is larger than maxBytes \(1000 bytes\)$/,
    );
    assert.ok(chunked.cancelled());
    // A Content-Length that lies low, or is not a number: still 413.
    for (const length of ["10", "abc", "-1", "1e3"]) {
      const lying = repeatedStream(" ", 5000);
      await assertHttpError(
        parseJson(
          streamRequest(lying.stream, {
            "content-type": "application/json",
            "content-length": length,
          }),
          s.any,
          { maxBytes: 1000 },
        ),
        413,
        /larger than maxBytes \(1000 bytes\)/,
      );
    }
    // The default is 1 MiB.
    await assertHttpError(
      parseJson(streamRequest(repeatedStream(" ", 2 ** 21).stream), s.any),
      413,
      /maxBytes \(1048576 bytes\)/,
    );
  });

  Deno.test(`parseJson (${lib}): a Content-Length that does not match the body is 400`, async () => {
    const body = new TextEncoder().encode('{"a":1}');
    const stream = () =>
      new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(body);
          controller.close();
        },
      });
    const withLength = (length: string) =>
      streamRequest(stream(), {
        "content-type": "application/json",
        "content-length": length,
      });
    await assertHttpError(
      parseJson(withLength("3"), s.any),
      400,
      /Request body is 7 bytes but Content-Length declares 3/,
    );
    await assertHttpError(
      parseJson(withLength("100"), s.any),
      400,
      /Request body is 7 bytes but Content-Length declares 100/,
    );
    await assertHttpError(
      parseJson(withLength("abc"), s.any),
      400,
      /Content-Length is not a decimal byte count/,
    );
    assert.ok((await parseJson(withLength("7"), s.any)).success);
  });

  Deno.test(`parseJson (${lib}): malformed JSON says where`, async () => {
    const cases: [string, RegExp][] = [
      [
        '{"a":}',
        /line 1, column 6 \(character 5\): unexpected "}", expected a value/,
      ],
      [
        '{"a": 1,\n  "b": x}',
        /line 2, column 8 \(character 16\): unexpected "x"/,
      ],
      ['{"a": 1', /line 1, column 8 .*end of input, expected ',' or '}'/],
      ["[1, 2,]", /line 1, column 7 .*unexpected "]", expected a value/],
      ["{a: 1}", /column 2 .*expected a string key/],
      ['"abc', /unterminated string/],
      ["01", /malformed number/],
      ["[1] [2]", /after the JSON value/],
      ['"\\x"', /unknown escape \\x/],
      ['"a\tb"', /control character/],
      [
        "   \n  ",
        /line 2, column 3 .*unexpected end of input, expected a value/,
      ],
    ];
    for (const [text, message] of cases) {
      const error = await assertHttpError(
        parseJson(jsonRequest(text), s.any),
        400,
        message,
      );
      assert.match(error.message, /^Malformed JSON at line/);
    }
  });

  Deno.test(`parseJson (${lib}): empty body, invalid UTF-8 and depth are 400`, async () => {
    await assertHttpError(
      parseJson(jsonRequest(""), s.any),
      400,
      /Request body is empty: expected JSON/,
    );
    await assertHttpError(
      parseJson(jsonRequest(null), s.any),
      400,
      /Request body is empty/,
    );
    // A raw (UTF-8 encoded) lone surrogate is invalid UTF-8.
    await assertHttpError(
      parseJson(
        jsonRequest(new Uint8Array([0x22, 0x61, 0xed, 0xa0, 0x80, 0x22])),
        s.any,
      ),
      400,
      /not valid UTF-8 \(first bad byte at offset 2\)/,
    );
    const nested = (depth: number) => "[".repeat(depth) + "]".repeat(depth);
    assert.ok((await parseJson(jsonRequest(nested(64)), s.any)).success);
    await assertHttpError(
      parseJson(jsonRequest(nested(65)), s.any),
      400,
      /JSON nesting is deeper than maxDepth \(64 levels\)/,
    );
    await assertHttpError(
      parseJson(jsonRequest('{"a":{"b":{"c":1}}}'), s.any, { maxDepth: 2 }),
      400,
      /deeper than maxDepth \(2 levels\)/,
    );
    // 600,000 levels, within maxBytes: no recursion, so no stack overflow.
    await assertHttpError(
      parseJson(jsonRequest(nested(600_000)), s.any, { maxBytes: 2 ** 21 }),
      400,
      /deeper than maxDepth/,
    );
    await assertHttpError(
      parseJson(jsonRequest("[".repeat(1_000_000)), s.any, {
        maxBytes: 2 ** 21,
      }),
      400,
      /Malformed JSON at line 1, column 1000001 .*end of input/,
    );
  });

  Deno.test(`parseJson (${lib}): __proto__ is refused and reaches no prototype`, async () => {
    for (
      const text of [
        '{"__proto__": {"polluted": true}}',
        '{"a": [{"__proto__": {"polluted": true}}]}',
        '{"\\u005f_proto__": {"polluted": true}}',
      ]
    ) {
      await assertHttpError(
        parseJson(jsonRequest(text), s.any),
        400,
        /JSON key "__proto__" is refused/,
      );
    }
    const nested = await assertHttpError(
      parseJson(jsonRequest('{"a": [{"__proto__": 1}]}'), s.any),
      400,
      /./,
    );
    assert.match(nested.message, /in "a\[0\]"/);
    // deno-lint-ignore no-explicit-any
    assert.equal(({} as any).polluted, undefined);
  });

  Deno.test(`parseJson (${lib}): constructor and prototype keys are refused as __proto__ is`, async () => {
    for (
      const [text, key, where] of [
        [
          '{"constructor": {"prototype": {"isAdmin": true}}}',
          "constructor",
          "the object",
        ],
        [
          '{"a": {"constructor": {"prototype": {"x": 1}}}}',
          "constructor",
          '"a"',
        ],
        ['{"prototype": {"isAdmin": true}}', "prototype", "the object"],
        ['[{"\\u0063onstructor": 1}]', "constructor", '"[0]"'],
      ]
    ) {
      const error = await assertHttpError(
        parseJson(jsonRequest(text), s.any),
        400,
        new RegExp(`JSON key "${key}" is refused`),
      );
      assert.ok(error.message.includes(`in ${where}`), error.message);
    }
    // A naive deep merge of what was refused would have reached here.
    // deno-lint-ignore no-explicit-any
    assert.equal(({} as any).isAdmin, undefined);
    // As values, the words are fine.
    const ok = await parseJson(jsonRequest('{"kind": "constructor"}'), s.any);
    assert.ok(ok.success);
  });

  Deno.test(`parseJson (${lib}): duplicate keys: the last wins; a BOM is dropped`, async () => {
    const dup = await parseJson(jsonRequest('{"a": 1, "a": 2}'), s.any);
    assert.ok(dup.success);
    assert.deepEqual(dup.value, { a: 2 });
    const bom = new Uint8Array([
      0xef,
      0xbb,
      0xbf,
      ...new TextEncoder().encode("[1]"),
    ]);
    const withBom = await parseJson(jsonRequest(bom), s.any);
    assert.ok(withBom.success);
    assert.deepEqual(withBom.value, [1]);
  });

  Deno.test(`parseJson (${lib}): a maxDepth past 1,000 refuses the same (the walk with a stack of its own)`, async () => {
    // Up to 1,000 levels the walk recurses; past that it keeps its own
    // stack: both must refuse the same things.
    const nested = (depth: number) => "[".repeat(depth) + "]".repeat(depth);
    const big = { maxDepth: 5000 };
    assert.ok((await parseJson(jsonRequest(nested(5000)), s.any, big)).success);
    await assertHttpError(
      parseJson(jsonRequest(nested(5001)), s.any, big),
      400,
      /deeper than maxDepth \(5000 levels\)/,
    );
    for (
      const [text, message] of [
        ['{"a": [{"__proto__": 1}]}', /JSON key "__proto__" is refused/],
        ['[{"b": {"constructor": 1}}]', /JSON key "constructor" is refused/],
        ['{"prototype": 1}', /JSON key "prototype" is refused/],
        ['{"n": [1, 1e999999]}', /out of range .*"n\[1\]"/],
        ['[{"s": "a\\udc00"}]', /lone surrogate .*"\[0\]\.s"/],
        ['[{"\\ud800": 1}]', /JSON key holds a lone surrogate/],
      ] as const
    ) {
      for (const options of [undefined, big]) {
        await assertHttpError(
          parseJson(jsonRequest(text), s.any, options),
          400,
          message,
        );
      }
    }
  });

  Deno.test(`parseJson (${lib}): lone surrogates and numbers out of range are 400`, async () => {
    await assertHttpError(
      parseJson(jsonRequest('{"name": "a\\ud800b"}'), s.any),
      400,
      /JSON string holds a lone surrogate .* \(at "name"\)/,
    );
    await assertHttpError(
      parseJson(jsonRequest('{"\\udc00": 1}'), s.any),
      400,
      /JSON key holds a lone surrogate/,
    );
    // A pair is fine.
    const pair = await parseJson(jsonRequest('["\\ud83d\\ude00"]'), s.any);
    assert.ok(pair.success);
    assert.deepEqual(pair.value, ["😀"]);
    await assertHttpError(
      parseJson(jsonRequest('{"n": [1, 1e999999]}'), s.any),
      400,
      /JSON number is out of range \(it parses to Infinity\) \(at "n\[1\]"\)/,
    );
    await assertHttpError(
      parseJson(jsonRequest("-1e999999"), s.any),
      400,
      /out of range .*the top-level value/,
    );
  });

  Deno.test(`parseJson (${lib}): clean bodies that hold refused words, exponents, long digit runs and many brackets pass`, async () => {
    // Each is what a proof of cleanness from the text alone (no `\u`, no
    // refused word, no exponent or run of 309 digits, at most maxDepth of
    // `{` and `[`) could not clear: the walk of the value must take them.
    const deep = (depth: number) =>
      '{"a":'.repeat(depth - 1) + "{}" + "}".repeat(depth - 1);
    for (
      const [text, expected] of [
        ['{"note": "a __proto__ b"}', { note: "a __proto__ b" }],
        ['{"note": "constructor"}', { note: "constructor" }],
        ['{"prototypes": 1}', { prototypes: 1 }],
        ['{"n": 1e5, "m": 2.5E-3}', { n: 1e5, m: 2.5e-3 }],
        ['{"s": "1e999"}', { s: "1e999" }],
        [`{"n": 1${"0".repeat(308)}}`, { n: 1e308 }],
        [`{"s": "${"9".repeat(400)}"}`, { s: "9".repeat(400) }],
        ['{"a": "\\u0041"}', { a: "A" }],
        [`{"s": "${"{[".repeat(40)}"}`, { s: "{[".repeat(40) }],
        [
          `[${Array.from({ length: 100 }, () => "{}").join(",")}]`,
          Array.from({ length: 100 }, () => ({})),
        ],
        [deep(64), JSON.parse(deep(64))],
      ] as [string, unknown][]
    ) {
      const result = await parseJson(jsonRequest(text), s.any);
      assert.ok(result.success, text.slice(0, 60));
      assert.deepEqual(result.value, expected);
    }
  });

  Deno.test(`parseJson (${lib}): refusals past the first words of a body: a 309-digit number, depth by objects, a later key`, async () => {
    const deep = (depth: number) =>
      '{"a":'.repeat(depth - 1) + "{}" + "}".repeat(depth - 1);
    for (
      const [text, message] of [
        ['{"a": 1e400}', /number is out of range .*\(at "a"\)/],
        [`{"a": 2${"0".repeat(308)}}`, /number is out of range .*\(at "a"\)/],
        [deep(65), /deeper than maxDepth \(64 levels\)/],
        [
          '{"x": "plain", "__proto__": 1}',
          /JSON key "__proto__" is refused/,
        ],
        ['{"a": {"constructor": 1}}', /JSON key "constructor" is refused/],
        ['{"\\u0070rototype": 1}', /JSON key "prototype" is refused/],
        ['["\\ud800"]', /lone surrogate .*\(at "\[0\]"\)/],
      ] as [string, RegExp][]
    ) {
      await assertHttpError(parseJson(jsonRequest(text), s.any), 400, message);
    }
  });

  Deno.test(`parseJson (${lib}): 408 when the client stalls`, async () => {
    const idle = stalledStream('{"a":');
    await assertHttpError(
      parseJson(streamRequest(idle.stream), s.any, { idleTimeout: 50 }),
      408,
      /No request body data arrived for 50 ms \(idleTimeout\)/,
    );
    assert.ok(idle.cancelled());
    // A trickle: a byte every 20 ms, under the idle timeout, past the body's.
    let timer: ReturnType<typeof setInterval> | undefined;
    const trickle = new ReadableStream<Uint8Array>({
      start(controller) {
        timer = setInterval(() => controller.enqueue(new Uint8Array([32])), 20);
      },
      cancel() {
        clearInterval(timer);
      },
    });
    await assertHttpError(
      parseJson(streamRequest(trickle), s.any, {
        idleTimeout: 1000,
        bodyTimeout: 150,
      }),
      408,
      /did not arrive within 150 ms \(bodyTimeout\)/,
    );
    clearInterval(timer);
  });

  Deno.test(`parseJson (${lib}): 1 GiB of "[" and 100 MB of white space are streamed, never buffered`, async () => {
    const brackets = repeatedStream("[", 2 ** 30);
    await assertHttpError(
      parseJson(streamRequest(brackets.stream), s.any),
      413,
      /maxBytes \(1048576 bytes\)/,
    );
    // The limit plus what the stream had queued: a few 64 KiB chunks.
    assert.ok(brackets.pulled() <= 2 ** 20 + 4 * 65536, `${brackets.pulled()}`);
    assert.ok(brackets.cancelled());

    const spaces = repeatedStream(" ", 100 * 1000 * 1000);
    await assertHttpError(
      parseJson(streamRequest(spaces.stream), s.any),
      413,
      /maxBytes/,
    );
    assert.ok(spaces.pulled() <= 2 ** 20 + 4 * 65536, `${spaces.pulled()}`);
  });

  Deno.test(`parseQuery (${lib}): coerces, repeats make arrays, hostile names refused`, async () => {
    const url = new URL("http://localhost/notes?limit=5&tag=a&tag=b");
    for (const input of [url, url.searchParams, url.href]) {
      const result = await parseQuery(input, s.page);
      assert.ok(result.success);
      assert.deepEqual(result.value, { limit: 5, tag: ["a", "b"] });
    }
    const bad = await parseQuery(new URLSearchParams("limit=x"), s.page);
    assert.equal(bad.success, false);
    if (!bad.success) assert.deepEqual(Object.keys(bad.fieldErrors), ["limit"]);
    const hostile = await parseQuery(
      new URLSearchParams("__proto__.polluted=1&limit=2"),
      s.page,
    );
    assert.equal(hostile.success, false);
    if (!hostile.success) assert.match(hostile.formErrors[0], /__proto__/);
    // deno-lint-ignore no-explicit-any
    assert.equal(({} as any).polluted, undefined);
  });

  Deno.test(`parseParams (${lib}): :id coerced to a number, or refused`, async () => {
    const ok = await parseParams({ id: "42" }, s.id);
    assert.ok(ok.success);
    assert.equal(ok.value.id, 42);
    const bad = await parseParams({ id: "abc" }, s.id);
    assert.equal(bad.success, false);
    if (!bad.success) assert.deepEqual(Object.keys(bad.fieldErrors), ["id"]);
  });

  Deno.test(`parseHeaders (${lib}): lowercase names, coerced`, async () => {
    const ok = await parseHeaders(
      new Headers({ "X-Api-Version": "2" }),
      s.version,
    );
    assert.ok(ok.success);
    assert.equal(ok.value["x-api-version"], 2);
    const missing = await parseHeaders(new Headers(), s.version);
    assert.equal(missing.success, false);
    if (!missing.success) {
      assert.deepEqual(Object.keys(missing.fieldErrors), ["x-api-version"]);
    }
  });
}

/** A schema that accepts its input as it is. */
const identity: StandardSchemaV1<unknown, Record<string, string>> = {
  "~standard": {
    version: 1,
    vendor: "test",
    validate: (value) => ({ value: value as Record<string, string> }),
  },
};

Deno.test("parseHeaders: __proto__, constructor and prototype headers are refused with a form error", async () => {
  for (const name of ["__proto__", "constructor", "prototype"]) {
    const result = await parseHeaders(
      new Headers([["x-ok", "1"], [name, "x"]]),
      identity,
    );
    assert.equal(result.success, false, name);
    if (!result.success) {
      assert.match(result.formErrors[0], new RegExp(`"${name}"`));
    }
  }
  const fine = await parseHeaders(new Headers([["x-ok", "1"]]), identity);
  assert.ok(fine.success);
  // deno-lint-ignore no-explicit-any
  assert.equal(({} as any).x, undefined);
});

Deno.test("parseQuery: constructor and prototype names are refused, as parseForm refuses them", async () => {
  for (
    const query of [
      "constructor.prototype.isAdmin=1",
      "prototype=1",
      "a[constructor]=1",
    ]
  ) {
    const result = await parseQuery(new URLSearchParams(query), identity);
    assert.equal(result.success, false, query);
  }
});

Deno.test("readBody: bytes or text, bounded", async () => {
  const bytes = await readBody(jsonRequest("héllo"));
  assert.ok(bytes instanceof Uint8Array);
  assert.equal(bytes.length, 6);
  assert.equal(await readBody(jsonRequest("héllo"), { as: "text" }), "héllo");
  assert.equal(
    (await readBody(new Request("http://localhost/"))).length,
    0,
  );
  await assertHttpError(
    readBody(jsonRequest(new Uint8Array([0x61, 0xff])), { as: "text" }),
    400,
    /not valid UTF-8 \(first bad byte at offset 1\)/,
  );
  await assertHttpError(
    readBody(streamRequest(repeatedStream("x", 10_000).stream), {
      maxBytes: 100,
    }),
    413,
    /maxBytes \(100 bytes\)/,
  );
  // Large bodies across many chunks come back whole.
  const large = await readBody(
    streamRequest(repeatedStream("y", 300_000).stream),
    { maxBytes: 300_000 },
  );
  assert.equal(large.length, 300_000);
  assert.ok(large.every((b) => b === 0x79));
});

Deno.test("readBody and parseJson: bad options and a used body are programmer errors", async () => {
  await assert.rejects(
    readBody(jsonRequest("x"), { maxBytes: -1 }),
    RangeError,
  );
  await assert.rejects(
    parseJson(jsonRequest("1"), z.unknown(), { maxDepth: 0 }),
    /maxDepth must be a number >= 1/,
  );
  const used = jsonRequest("1");
  await used.text();
  await assert.rejects(
    parseJson(used, z.unknown()),
    /request body was already read/,
  );
});

Deno.test("parse*: async schemas are awaited; a schema that throws rejects", async () => {
  const taken = z.object({
    name: z.string().refine(async (name) => {
      await new Promise((resolve) => setTimeout(resolve, 1));
      return name !== "taken";
    }, "Name is taken"),
  });
  const ok = await parseJson(jsonRequest('{"name": "free"}'), taken);
  assert.ok(ok.success);
  const refused = await parseParams({ name: "taken" }, taken);
  assert.equal(refused.success, false);
  if (!refused.success) {
    assert.deepEqual(refused.fieldErrors.name, ["Name is taken"]);
  }
  const asyncValibot = v.objectAsync({
    n: v.pipeAsync(
      v.string(),
      v.checkAsync((n) => Promise.resolve(n === "1"), "not 1"),
    ),
  });
  assert.ok(
    (await parseHeaders(new Headers({ n: "1" }), asyncValibot)).success,
  );

  const throwing: StandardSchemaV1 = {
    "~standard": {
      version: 1,
      vendor: "test",
      validate: () => {
        throw new Error("schema bug");
      },
    },
  };
  const pending = parseParams({}, throwing);
  assert.ok(pending instanceof Promise);
  await assert.rejects(pending, /schema bug/);
  await assert.rejects(parseHeaders(new Headers(), throwing), /schema bug/);
  await assert.rejects(parseJson(jsonRequest("1"), throwing), /schema bug/);
});

Deno.test("readBody and parseJson leave no deadline on the shared watchdog", async () => {
  const before = watching();
  const body = JSON.stringify({ a: 1 });
  // Whole read (declared), chunked read, a refusal mid-read, a stall.
  await parseJson(
    jsonRequest(body, { "content-length": String(body.length) }),
    z.unknown(),
  );
  await readBody(streamRequest(repeatedStream("x", 200_000).stream));
  await assertHttpError(
    readBody(streamRequest(repeatedStream("x", 5000).stream), {
      maxBytes: 100,
    }),
    413,
    /maxBytes/,
  );
  await assertHttpError(
    parseJson(streamRequest(stalledStream("[").stream), z.unknown(), {
      idleTimeout: 30,
    }),
    408,
    /idleTimeout/,
  );
  assert.equal(watching(), before);
});
