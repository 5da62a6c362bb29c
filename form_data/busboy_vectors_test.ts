// busboy's own multipart and urlencoded test vectors, fed to our parser at
// several chunk sizes and compared with busboy's expected fields and files.
// Where we differ on purpose, the vector's outcome says why (see BY_DESIGN).
import assert from "node:assert/strict";
import {
  FormDataLimitError,
  FormDataParseError,
  parseFormData,
  type ParseFormDataOptions,
} from "@fetchkit/toolkit/form-data-middleware";
// @ts-types="./_test_busboy_types.d.ts"
import { tests as multipartVectors } from "./_test_busboy_multipart.js";
// @ts-types="./_test_busboy_types.d.ts"
import { tests as urlencodedVectors } from "./_test_busboy_urlencoded.js";

const CHUNK_SIZES = [1, 2, 7, 64, Infinity];

type Got = { type: "field"; name: string; val: string } | {
  type: "file";
  name: string;
  filename: string;
  mimeType: string;
  data: number[];
};

function bodyOf(source: (string | Uint8Array)[]): Uint8Array {
  const parts = source.map((s) =>
    typeof s === "string" ? new TextEncoder().encode(s) : new Uint8Array(s)
  );
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) out.set(p, (at += p.length) - p.length);
  return out;
}

function chunked(bytes: Uint8Array, size: number): ReadableStream<Uint8Array> {
  let at = 0;
  return new ReadableStream({
    pull(controller) {
      if (at >= bytes.length) return controller.close();
      const end = Math.min(bytes.length, at + size);
      controller.enqueue(bytes.slice(at, end));
      at = end;
    },
  }, { highWaterMark: 0 });
}

/** busboy's limits, in ours where we have one (parts, headerPairs and fieldNameSize we do not). */
function ourLimits(limits: Record<string, number> = {}): ParseFormDataOptions {
  // busboy's part header limit is 16 KiB (ours defaults to 8 KiB, as most
  // servers' header limits): compare at busboy's.
  const out: ParseFormDataOptions = { maxHeaderSize: 16 * 1024 };
  if (limits.fileSize !== undefined) out.maxFileSize = limits.fileSize;
  if (limits.files !== undefined) out.maxFiles = limits.files;
  if (limits.fields !== undefined) out.maxFields = limits.fields;
  if (limits.fieldSize !== undefined) out.maxFieldSize = limits.fieldSize;
  return out;
}

async function parse(
  bytes: Uint8Array,
  contentType: string,
  size: number,
  options: ParseFormDataOptions,
): Promise<Got[] | FormDataParseError> {
  const request = new Request("http://x/", {
    method: "POST",
    headers: { "Content-Type": contentType },
    body: chunked(bytes, size),
  });
  let form: FormData;
  try {
    form = await parseFormData(request, options);
  } catch (error) {
    if (error instanceof FormDataParseError) return error;
    throw error;
  }
  const got: Got[] = [];
  for (const [name, value] of form) {
    if (typeof value === "string") {
      got.push({ type: "field", name, val: value });
    } else {
      got.push({
        type: "file",
        name,
        filename: value.name,
        mimeType: value.type.split(";")[0].trim().toLowerCase(),
        data: [...new Uint8Array(await value.arrayBuffer())],
      });
    }
  }
  return got;
}

function expectedOf(
  // deno-lint-ignore no-explicit-any
  vector: any,
): { got: Got[]; error: boolean; limited: boolean } {
  const got: Got[] = [];
  let error = false;
  let limited = false;
  for (const e of vector.expected) {
    if (typeof e === "string") limited = true; // partsLimit, filesLimit, ...
    else if ("error" in e) error = true;
    else if (e.type === "field") {
      if (e.info.valueTruncated || e.info.nameTruncated) limited = true;
      got.push({ type: "field", name: e.name, val: e.val });
    } else {
      if (e.limited) limited = true;
      got.push({
        type: "file",
        name: e.name,
        filename: e.info.filename,
        mimeType: e.info.mimeType,
        data: [...e.data],
      });
    }
  }
  return { got, error, limited };
}

const tally = { equal: 0, bothReject: 0, limitByDesign: 0, byDesign: 0 };

for (const vector of multipartVectors) {
  Deno.test(`busboy multipart vector: ${vector.what}`, async () => {
    const bytes = bodyOf(vector.source);
    const expected = expectedOf(vector);
    const contentType = `multipart/form-data; boundary=${vector.boundary}`;
    for (const size of CHUNK_SIZES) {
      const result = await parse(
        bytes,
        contentType,
        size,
        ourLimits(vector.limits),
      );
      const label = `${vector.what}, chunks of ${size}`;
      if (expected.error) {
        // busboy emits the parts before the error, then fails; we fail the
        // whole body with a 400 (a half-read form is not a form).
        // A header over the limit is a 413 naming maxHeaderSize for us, a
        // "Malformed part header" for busboy.
        assert.ok(result instanceof FormDataParseError, label);
        assert.equal(
          result.status,
          result instanceof FormDataLimitError ? 413 : 400,
          label,
        );
        if (size === 1) tally.bothReject++;
        continue;
      }
      if (expected.limited || vector.limits !== undefined) {
        // By design: a limit answers 413 with the field and the limit named,
        // where busboy truncates or drops and carries on. Limits we lack
        // (parts, headerPairs, fieldNameSize) let the body through whole.
        if (result instanceof FormDataParseError) {
          assert.ok(
            result instanceof FormDataLimitError,
            `${label}: ${result}`,
          );
          assert.equal(result.status, 413, label);
        } else {
          const names = new Set(expected.got.map((g) => g.name));
          for (const g of result) {
            if (g.type === "field" && names.has(g.name)) {
              const want = expected.got.find((e) => e.name === g.name)!;
              if (want.type === "field" && !expected.limited) {
                assert.equal(g.val, want.val, label);
              }
            }
          }
        }
        if (size === 1) tally.limitByDesign++;
        continue;
      }
      assert.ok(!(result instanceof Error), `${label}: ${result}`);
      let want = expected.got;
      let got = result;
      if (vector.events !== undefined) {
        // busboy drops parts nobody listens to; we return every part.
        got = got.filter((g) => vector.events.includes(g.type));
        if (size === 1) tally.byDesign++;
      } else if (
        vector.preservePath !== true &&
        got.some((g, i) =>
          g.type === "file" && want[i]?.type === "file" &&
          g.filename !== (want[i] as { filename: string }).filename
        )
      ) {
        // By design: File.name is the name as sent (as Deno keeps it);
        // busboy strips the path unless preservePath. It is client data,
        // never a safe path (see the module docs).
        want = want.map((w, i) => {
          const g = got[i];
          if (w.type !== "file" || g?.type !== "file") return w;
          assert.ok(g.filename.endsWith(w.filename), label);
          return { ...w, filename: g.filename };
        });
        if (size === 1) tally.byDesign++;
      } else if (size === 1) tally.equal++;
      assert.deepEqual(got, want, label);
    }
  });
}

for (const vector of urlencodedVectors) {
  Deno.test(`busboy urlencoded vector: ${vector.what}`, async () => {
    const bytes = bodyOf(vector.source);
    const charset = vector.charset ?? "utf-8";
    const want: Got[] = vector.expected.map((e: [string, string]) => ({
      type: "field",
      name: e[0],
      val: e[1],
    }));
    for (const size of CHUNK_SIZES) {
      const result = await parse(
        bytes,
        `application/x-www-form-urlencoded; charset=${charset}`,
        size,
        ourLimits(vector.limits),
      );
      const label = `${vector.what}, chunks of ${size}`;
      if (charset.toLowerCase() !== "utf-8") {
        // By design: urlencoded bodies are UTF-8 (WHATWG URL, and what
        // browsers send); busboy honors a charset parameter. We read the
        // bytes as UTF-8, as Deno's formData() does.
        assert.ok(!(result instanceof Error), label);
        continue;
      }
      if (vector.limits !== undefined) {
        if (result instanceof FormDataParseError) {
          assert.equal(result.status, 413, label);
        } else if (
          !vector.expected.some((
            e: [
              string,
              string,
              { valueTruncated: boolean; nameTruncated: boolean },
            ],
          ) => e[2].valueTruncated || e[2].nameTruncated) &&
          !(vector.limits.fields !== undefined)
        ) {
          assert.deepEqual(result, want, label);
        }
        continue;
      }
      assert.deepEqual(result, want, label);
    }
  });
}

Deno.test("busboy vectors: every multipart vector has an outcome", () => {
  // Filled by the tests above, which run first (same file, in order).
  console.log("busboy multipart vectors:", JSON.stringify(tally));
  const total = Object.values(tally).reduce((a, b) => a + b, 0);
  assert.equal(total, multipartVectors.length);
});
