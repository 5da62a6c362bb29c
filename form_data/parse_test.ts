import assert from "node:assert/strict";
import {
  FileUpload,
  type FormDataLimitError,
  FormDataParseError,
  FormDataTimeoutError,
  MaxFieldsExceededError,
  MaxFieldSizeExceededError,
  MaxFilesExceededError,
  MaxFileSizeExceededError,
  MaxHeaderSizeExceededError,
  MaxTotalSizeExceededError,
  parseFormData,
  type ParseFormDataOptions,
} from "@fetchkit/toolkit/form-data-middleware";
import {
  BOUNDARY,
  entriesOf,
  multipartBody,
  multipartRequest,
  rejection,
  splitAt,
  type TestPart,
} from "./_test_utils.ts";

const encoder = new TextEncoder();

function parseParts(parts: TestPart[], options?: ParseFormDataOptions) {
  return parseFormData(multipartRequest(multipartBody(parts)), options);
}

function urlencodedRequest(body: string, headers: HeadersInit = {}): Request {
  return new Request("http://localhost/", {
    method: "POST",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      ...headers,
    },
    body,
  });
}

Deno.test("matches the native parser on a browser-built FormData body", async () => {
  const form = new FormData();
  form.append("title", "Héllo wörld ✓");
  form.append("multi", "1");
  form.append("multi", "2");
  form.append(
    "file",
    new File(["data ✓"], "résumé.txt", { type: "text/plain" }),
  );
  form.append("multi", "3");
  const native = await new Request("http://x/", { method: "POST", body: form })
    .formData();
  const ours = await parseFormData(
    new Request("http://x/", { method: "POST", body: form }),
  );
  assert.deepEqual(await entriesOf(ours), await entriesOf(native));
  assert.deepEqual(ours.getAll("multi"), ["1", "2", "3"]);
  assert.ok(ours.has("title"));
  const file = ours.get("file");
  assert.ok(file instanceof File);
  assert.equal(file.name, "résumé.txt");
  assert.equal(file.size, encoder.encode("data ✓").length);
  assert.equal(file.type, "text/plain");
  assert.equal(await file.text(), "data ✓");
  assert.equal(new TextDecoder().decode(await file.arrayBuffer()), "data ✓");
});

Deno.test("quotes and newlines in names round-trip (%22, %0D, %0A)", async () => {
  // Browsers and Deno's FormData encoder escape these; the Fetch standard's
  // parser decodes them back (Deno's native parser leaves them escaped).
  const form = new FormData();
  form.append('say "hi"\r\nthere', "x");
  form.append("f", new File(["d"], 'a "b".txt'));
  const ours = await parseFormData(
    new Request("http://x/", { method: "POST", body: form }),
  );
  assert.equal(ours.get('say "hi"\r\nthere'), "x");
  assert.equal((ours.get("f") as File).name, 'a "b".txt');
});

Deno.test("UTF-8 field names, values and file names; filename* wins", async () => {
  const text = `--${BOUNDARY}\r\n` +
    `Content-Disposition: form-data; name="名前"\r\n\r\n値 ✓\r\n` +
    `--${BOUNDARY}\r\n` +
    `Content-Disposition: form-data; name="doc"; filename="fallback.txt"; ` +
    `filename*=UTF-8''%E2%82%AC%20rates.txt\r\n\r\nx\r\n` +
    `--${BOUNDARY}\r\n` +
    `Content-Disposition: form-data; name="latin"; filename*=iso-8859-1'en'%E9t%E9.txt\r\n\r\ny\r\n` +
    `--${BOUNDARY}\r\n` +
    `Content-Disposition: form-data; name="bad"; filename="plain.txt"; filename*=UTF-8''%E2%ZZ\r\n\r\nz\r\n` +
    `--${BOUNDARY}--\r\n`;
  const form = await parseFormData(multipartRequest(encoder.encode(text)));
  assert.equal(form.get("名前"), "値 ✓");
  assert.equal((form.get("doc") as File).name, "€ rates.txt");
  assert.equal((form.get("latin") as File).name, "été.txt");
  // An undecodable filename* falls back to filename.
  assert.equal((form.get("bad") as File).name, "plain.txt");
});

Deno.test("an empty file input gives an empty File named '' as browsers send it", async () => {
  let calls = 0;
  const form = await parseParts([
    { name: "avatar", filename: "", content: "" },
    { name: "note", value: "hi" },
  ], {
    maxFiles: 0,
    uploadHandler: () => {
      calls++;
      return "handled";
    },
  });
  const file = form.get("avatar");
  assert.ok(file instanceof File);
  assert.equal(file.name, "");
  assert.equal(file.size, 0);
  assert.equal(file.type, "application/octet-stream");
  assert.equal(calls, 0, "no handler call for an empty input");
  assert.equal(form.get("note"), "hi");
});

Deno.test("a field with a file name and no Content-Type is an octet-stream file", async () => {
  const text =
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="f"; filename="x"\r\n\r\nabc\r\n--${BOUNDARY}--`;
  const file = (await parseFormData(multipartRequest(encoder.encode(text))))
    .get("f") as File;
  assert.equal(file.type, "application/octet-stream");
  assert.equal(await file.text(), "abc");
});

Deno.test("urlencoded bodies parse, in order, with UTF-8", async () => {
  const form = await parseFormData(
    urlencodedRequest("a=1&b=h%C3%A9+llo&a=2&%E5%90%8D=%E5%80%A4&flag"),
  );
  assert.deepEqual(await entriesOf(form), [
    ["a", "1"],
    ["b", "hé llo"],
    ["a", "2"],
    ["名", "値"],
    ["flag", ""],
  ]);
});

Deno.test("other content types and bodiless requests give an empty FormData", async () => {
  const json = new Request("http://x/", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: '{"a":1}',
  });
  assert.deepEqual([...await parseFormData(json)], []);
  assert.equal(json.bodyUsed, false, "the body is left for the handler");
  const bodiless = new Request("http://x/", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
  });
  assert.deepEqual([...await parseFormData(bodiless)], []);
});

// Each limit at, below and above its value.
interface LimitCase {
  option: keyof ParseFormDataOptions;
  errorClass: new (...args: never[]) => FormDataLimitError;
  /** A body that needs exactly `size` of the limit. */
  request: (size: number) => Request;
  size: number;
  names: RegExp;
}

const limitCases: LimitCase[] = [
  {
    option: "maxFileSize",
    errorClass: MaxFileSizeExceededError,
    request: (size) =>
      multipartRequest(
        multipartBody([{
          name: "up",
          filename: "f.bin",
          content: new Uint8Array(size),
        }]),
      ),
    size: 1000,
    names:
      /File "f\.bin" \(field "up"\) is larger than maxFileSize \(\d+ bytes\)/,
  },
  {
    option: "maxFiles",
    errorClass: MaxFilesExceededError,
    request: (size) =>
      multipartRequest(
        multipartBody(
          Array.from({ length: size }, (_, i) => ({
            name: "docs",
            filename: `d${i}.txt`,
            content: "x",
          })),
        ),
      ),
    size: 3,
    names:
      /File "d\d\.txt" \(field "docs"\) is one file more than maxFiles \(\d files\)/,
  },
  {
    option: "maxFieldSize",
    errorClass: MaxFieldSizeExceededError,
    request: (size) =>
      multipartRequest(
        multipartBody([{ name: "bio", value: "é".repeat(size / 2) }]),
      ),
    size: 100,
    names: /Field "bio" is larger than maxFieldSize \(\d+ bytes\)/,
  },
  {
    option: "maxFields",
    errorClass: MaxFieldsExceededError,
    request: (size) =>
      multipartRequest(
        multipartBody(
          Array.from(
            { length: size },
            (_, i) => ({ name: `f${i}`, value: "v" }),
          ),
        ),
      ),
    size: 5,
    names: /Field "f\d" is one field more than maxFields \(\d fields\)/,
  },
  {
    option: "maxHeaderSize",
    errorClass: MaxHeaderSizeExceededError,
    request: (size) => {
      const header = 'Content-Disposition: form-data; name="a"; x=';
      const padded = header + "y".repeat(size - header.length);
      const text = `--${BOUNDARY}\r\n${padded}\r\n\r\nv\r\n--${BOUNDARY}--`;
      return multipartRequest(splitAt(encoder.encode(text), 30, 60));
    },
    size: 200,
    names: /Headers of part 1 are larger than maxHeaderSize \(\d+ bytes\)/,
  },
  {
    option: "maxTotalSize",
    errorClass: MaxTotalSizeExceededError,
    request: (size) => {
      const body = multipartBody([{
        name: "f",
        filename: "t.bin",
        content: "",
      }]);
      const filler = new Uint8Array(size - body.length).fill(97);
      // Several chunks, so that the limit is passed inside the file.
      const full = multipartBody([{
        name: "f",
        filename: "t.bin",
        content: filler,
      }]);
      return multipartRequest(splitAt(full, 200, 2000));
    },
    size: 5000,
    names:
      /Request body is larger than maxTotalSize \(\d+ bytes\) while reading file "t\.bin" \(field "f"\)/,
  },
  {
    option: "maxTotalSize",
    errorClass: MaxTotalSizeExceededError,
    request: (size) => urlencodedRequest("a=" + "b".repeat(size - 2)),
    size: 300,
    names: /Request body is larger than maxTotalSize \(\d+ bytes\)/,
  },
  {
    option: "maxFields",
    errorClass: MaxFieldsExceededError,
    request: (size) =>
      urlencodedRequest(
        Array.from({ length: size }, (_, i) => `k${i}=v`).join("&"),
      ),
    size: 4,
    names: /Field "k\d" is one field more than maxFields \(\d fields\)/,
  },
  {
    option: "maxFieldSize",
    errorClass: MaxFieldSizeExceededError,
    request: (size) => urlencodedRequest("bio=" + "%C3%A9".repeat(size / 2)),
    size: 60,
    names: /Field "bio" is larger than maxFieldSize \(\d+ bytes\)/,
  },
];

for (const { option, errorClass, request, size, names } of limitCases) {
  Deno.test(`${option} (${errorClass.name}): at, below and above the limit`, async () => {
    // A body at the limit, or below it, is accepted.
    await parseFormData(request(size), { [option]: size });
    await parseFormData(request(size), { [option]: size + 1 });
    // One over the limit is a 413 that names the part and the limit.
    const error = await rejection(
      parseFormData(request(size), { [option]: size - 1 }),
    );
    assert.ok(error instanceof errorClass, String(error));
    assert.ok(error instanceof FormDataParseError);
    assert.equal(error.status, 413);
    assert.equal(error.limit, option);
    assert.equal(error.max, size - 1);
    assert.match(error.message, names);
  });
}

Deno.test("maxTotalSize is checked against Content-Length before reading", async () => {
  let pulled = false;
  const request = new Request("http://x/", {
    method: "POST",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      "content-length": "1000000",
    },
    body: new ReadableStream({
      pull() {
        pulled = true;
      },
    }),
  });
  const error = await rejection(parseFormData(request, { maxTotalSize: 1000 }));
  assert.ok(error instanceof MaxTotalSizeExceededError);
  assert.equal(pulled, false);
});

Deno.test("limits also apply while an upload handler streams", async () => {
  const seen: number[] = [];
  const error = await rejection(
    parseParts([{
      name: "up",
      filename: "big.bin",
      content: new Uint8Array(5000),
    }], {
      maxFileSize: 4096,
      uploadHandler: async (upload) => {
        for await (const chunk of upload) seen.push(chunk.length);
        return "unreachable";
      },
    }),
  );
  assert.ok(error instanceof MaxFileSizeExceededError);
  assert.ok(seen.reduce((a, b) => a + b, 0) <= 4096);
});

Deno.test("a handler that swallows a limit error does not hide it", async () => {
  const error = await rejection(
    parseParts([{
      name: "up",
      filename: "big.bin",
      content: new Uint8Array(100),
    }], {
      maxFileSize: 10,
      uploadHandler: async (upload) => {
        try {
          await upload.bytes();
        } catch {
          // ignored on purpose
        }
        return "ok";
      },
    }),
  );
  assert.ok(error instanceof MaxFileSizeExceededError);
});

Deno.test("invalid limit options throw a RangeError", () => {
  return assert.rejects(
    parseFormData(multipartRequest(new Uint8Array()), { maxFiles: -1 }),
    RangeError,
  );
});

Deno.test("the upload handler streams files and its results fill the form", async () => {
  const uploads: {
    fieldName: string;
    name: string;
    type: string;
    size: number;
  }[] = [];
  const form = await parseParts([
    { name: "a", filename: "one.txt", type: "text/plain", content: "first" },
    { name: "skip", filename: "two.bin", content: "second" },
    { name: "blob", filename: "three.bin", content: "third" },
    { name: "unread", filename: "four.bin", content: "x".repeat(10_000) },
    { name: "after", value: "still parsed" },
  ], {
    uploadHandler: async (upload) => {
      assert.ok(upload instanceof FileUpload);
      if (upload.fieldName === "unread") return "not read";
      const bytes = await upload.bytes();
      uploads.push({ ...upload, name: upload.name, size: bytes.length });
      if (upload.fieldName === "skip") return null;
      if (upload.fieldName === "blob") return new Blob([bytes]);
      return new TextDecoder().decode(bytes).toUpperCase();
    },
  });
  assert.deepEqual(uploads.map((u) => [u.fieldName, u.name, u.type, u.size]), [
    ["a", "one.txt", "text/plain", 5],
    ["skip", "two.bin", "application/octet-stream", 6],
    ["blob", "three.bin", "application/octet-stream", 5],
  ]);
  assert.equal(form.get("a"), "FIRST");
  assert.equal(form.has("skip"), false);
  const blob = form.get("blob") as File;
  assert.equal(blob.name, "three.bin");
  assert.equal(await blob.text(), "third");
  assert.equal(form.get("unread"), "not read");
  assert.equal(form.get("after"), "still parsed");
});

Deno.test("reading an upload after its handler settled throws", async () => {
  let kept: FileUpload | undefined;
  await parseParts([
    { name: "a", filename: "a.txt", content: "aaa" },
    { name: "b", value: "bbb" },
  ], {
    uploadHandler: (upload) => {
      kept = upload;
      return null;
    },
  });
  assert.ok(kept);
  // Not read by the handler; it can still be taken, but reading fails.
  const iterator = kept[Symbol.asyncIterator]();
  await assert.rejects(async () => {
    await iterator.next();
    await iterator.next();
  });
});

Deno.test("a FileUpload can be read only once", async () => {
  const upload = new FileUpload(
    { fieldName: "f", name: "a.txt", type: "text/plain" },
    new Blob(["abc"]).stream(),
  );
  assert.equal(await upload.text(), "abc");
  assert.throws(() => upload.stream(), TypeError);
});

Deno.test("uploads are aborted when the rest of the body fails", async () => {
  let signal: AbortSignal | undefined;
  const error = await rejection(
    parseParts([
      { name: "a", filename: "a.txt", content: "aaa" },
      { name: "b", filename: "b.txt", content: "bbb" },
    ], {
      maxFiles: 1,
      uploadHandler: async (upload) => {
        signal = upload.signal;
        return await upload.text();
      },
    }),
  );
  assert.ok(error instanceof MaxFilesExceededError);
  assert.equal(signal?.aborted, true);
  assert.equal(signal?.reason, error);
});

Deno.test("a stalled body fails with a 408 FormDataTimeoutError naming the part", async () => {
  const start = encoder.encode(
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="f"; filename="slow.bin"\r\n\r\nabc`,
  );
  let cancelled: unknown;
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(start); // then nothing, ever
    },
    cancel(reason) {
      cancelled = reason;
    },
  });
  const request = new Request("http://x/", {
    method: "POST",
    headers: { "content-type": `multipart/form-data; boundary=${BOUNDARY}` },
    body: stream,
  });
  const error = await rejection(parseFormData(request, { idleTimeout: 50 }));
  assert.ok(error instanceof FormDataTimeoutError, String(error));
  assert.equal(error.status, 408);
  assert.equal(error.fileName, "slow.bin");
  assert.match(
    error.message,
    /50 ms \(idleTimeout\) while reading file "slow\.bin"/,
  );
  assert.equal(cancelled, error, "the body stream is cancelled");
});

Deno.test("empty file inputs count against maxFields, not maxFiles", async () => {
  const empties = (count: number) =>
    Array.from({ length: count }, (_, i) => ({
      name: `f${i}`,
      filename: "",
      content: "",
    }));
  // At and below the limit.
  const form = await parseParts(
    [...empties(2), { name: "note", value: "v" }],
    { maxFields: 3, maxFiles: 0 },
  );
  assert.equal([...form.keys()].length, 3);
  // Above: 500 empty parts used to be accepted with maxFields: 1.
  const error = await rejection(
    parseParts(empties(500), { maxFields: 1, maxFiles: 1 }),
  );
  assert.ok(error instanceof MaxFieldsExceededError, String(error));
  assert.equal(error.status, 413);
  assert.equal(error.fieldName, "f1");
  assert.match(
    error.message,
    /\(field "f1"\) is one field more than maxFields/,
  );
});

/** A body that sends its head, then one byte every `every` ms, for good. */
function tricklingRequest(every: number): {
  request: Request;
  cancelled: () => unknown;
  stop: () => Promise<void>;
} {
  const head = encoder.encode(
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="f"\r\n\r\n`,
  );
  let cancelled: unknown;
  let stopped = false;
  let started = false;
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!started) {
        started = true;
        return controller.enqueue(head);
      }
      await new Promise((resolve) => setTimeout(resolve, every));
      if (stopped) return controller.close();
      controller.enqueue(encoder.encode("x"));
    },
    cancel(reason) {
      cancelled = reason;
    },
  }, { highWaterMark: 0 });
  const request = new Request("http://x/", {
    method: "POST",
    headers: { "content-type": `multipart/form-data; boundary=${BOUNDARY}` },
    body: stream,
  });
  return {
    request,
    cancelled: () => cancelled,
    async stop() {
      stopped = true;
      // Let a pull that is waiting end.
      await new Promise((resolve) => setTimeout(resolve, every * 2));
    },
  };
}

Deno.test("a body trickled within idleTimeout fails with a 408 after bodyTimeout", async () => {
  const trickle = tricklingRequest(20);
  let guard: ReturnType<typeof setTimeout> | undefined;
  try {
    const started = performance.now();
    const error = await rejection(
      Promise.race([
        parseFormData(trickle.request, { idleTimeout: 200, bodyTimeout: 300 }),
        new Promise((_, reject) => {
          guard = setTimeout(
            () => reject(new Error("still parsing after 3 s")),
            3000,
          );
        }),
      ]),
    );
    assert.ok(error instanceof FormDataTimeoutError, String(error));
    assert.equal(error.status, 408);
    assert.equal(error.limit, "bodyTimeout");
    assert.equal(error.timeout, 300);
    assert.equal(error.fieldName, "f");
    assert.match(
      error.message,
      /did not arrive within 300 ms \(bodyTimeout\) while reading field "f"/,
    );
    assert.ok(performance.now() - started >= 290);
    assert.equal(trickle.cancelled(), error, "the body stream is cancelled");
  } finally {
    clearTimeout(guard);
    await trickle.stop();
  }
});

Deno.test("bodyTimeout defaults to 5 minutes and 0 turns it off", async () => {
  const { DEFAULTS, resolveLimits } = await import("./limits.ts");
  assert.equal(DEFAULTS.bodyTimeout, 300_000);
  assert.equal(resolveLimits({}).bodyTimeout, 300_000);
  assert.equal(resolveLimits({ bodyTimeout: 0 }).bodyTimeout, 0);
  await assert.rejects(
    parseFormData(multipartRequest(new Uint8Array()), { bodyTimeout: -1 }),
    RangeError,
  );
});

Deno.test("a part with an undecodable filename* is still a file", async () => {
  const cases: [string, string][] = [
    [`filename*=UTF-8''%E2%82`, "%E2%82"],
    [`filename*=windows-1252''abc.txt`, "abc.txt"],
    [`filename*=UTF-8'abc.txt`, "UTF-8'abc.txt"],
    [`filename*=UTF-8''%E2%82; filename="plain.png"`, "plain.png"],
  ];
  for (const [params, name] of cases) {
    const text =
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="f"; ${params}\r\nContent-Type: image/png\r\n\r\nPNGDATA\r\n--${BOUNDARY}--`;
    const handled: string[] = [];
    const form = await parseFormData(multipartRequest(encoder.encode(text)), {
      uploadHandler: async (upload) => {
        handled.push(upload.name);
        return new File([await upload.bytes()], upload.name, {
          type: upload.type,
        });
      },
    });
    const file = form.get("f");
    assert.ok(file instanceof File, `${params}: ${String(file)}`);
    assert.equal(file.name, name, params);
    assert.equal(file.type, "image/png");
    assert.equal(await file.text(), "PNGDATA");
    assert.deepEqual(handled, [name]);
  }
});

Deno.test("maxFileSize counts the bytes an upload handler leaves unread", async () => {
  const parts = [
    { name: "up", filename: "big.bin", content: new Uint8Array(1000) },
    { name: "after", value: "v" },
  ];
  const chunked = () => multipartRequest(splitAt(multipartBody(parts), 150));
  // A handler that reads nothing, or only the first chunk.
  const ignore = () => "ignored";
  const peek = async (upload: FileUpload) => {
    await upload[Symbol.asyncIterator]().next();
    return "peeked";
  };
  for (const uploadHandler of [ignore, peek]) {
    const error = await rejection(
      parseFormData(chunked(), { maxFileSize: 999, uploadHandler }),
    );
    assert.ok(error instanceof MaxFileSizeExceededError, String(error));
    assert.equal(error.fileName, "big.bin");
    // At the limit it is accepted.
    const form = await parseFormData(chunked(), {
      maxFileSize: 1000,
      uploadHandler,
    });
    assert.equal(form.get("after"), "v");
  }
});
