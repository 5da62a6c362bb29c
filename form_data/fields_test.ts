import assert from "node:assert/strict";
import { createRouter } from "@fetchkit/toolkit/fetch-router";
import {
  formData,
  type FormFieldRecord,
  FormFields,
} from "@fetchkit/toolkit/form-data-middleware";

/** What the handler saw: the record, and the form when it asked for one. */
interface Seen {
  fields?: FormFieldRecord;
  form?: FormData;
  status: number;
  text: string;
}

async function post(
  body: BodyInit,
  options: {
    asForm?: boolean;
    both?: boolean;
    contentType?: string;
    limits?: Parameters<typeof formData>[0];
  } = {},
): Promise<Seen> {
  const seen: Partial<Seen> = {};
  const router = createRouter();
  router.post("/", formData(options.limits), ({ get }) => {
    if (options.asForm || options.both) seen.form = get(FormData);
    if (!options.asForm) seen.fields = get(FormFields);
    return new Response("ok");
  });
  const headers = options.contentType === undefined
    ? undefined
    : { "content-type": options.contentType };
  const response = await router.fetch(
    new Request("http://localhost/", { method: "POST", body, headers }),
  );
  return { ...seen, status: response.status, text: await response.text() };
}

Deno.test("FormFields: a urlencoded form as a record, duplicates as arrays in order", async () => {
  const { fields } = await post(
    "email=a%40example.com&tag=x&tag=y&tag=z&empty=&bare",
    { contentType: "application/x-www-form-urlencoded" },
  );
  assert.deepEqual({ ...fields }, {
    email: "a@example.com",
    tag: ["x", "y", "z"],
    empty: "",
    bare: "",
  });
});

Deno.test("FormFields: a name ending in [] always holds an array, key as sent", async () => {
  const { fields } = await post("tags%5B%5D=one&ids[]=1&ids[]=2&a[0]=x", {
    contentType: "application/x-www-form-urlencoded",
  });
  assert.deepEqual({ ...fields }, {
    "tags[]": ["one"],
    "ids[]": ["1", "2"],
    "a[0]": "x",
  });
});

Deno.test("FormFields: __proto__, constructor and prototype names are inert entries", async () => {
  const { fields } = await post(
    "__proto__=evil&constructor=c&prototype=p&toString=t&__proto__=again",
    { contentType: "application/x-www-form-urlencoded" },
  );
  assert.ok(fields !== undefined);
  assert.equal(Object.getPrototypeOf(fields), null);
  assert.deepEqual(Object.keys(fields), [
    "__proto__",
    "constructor",
    "prototype",
    "toString",
  ]);
  assert.deepEqual(fields["__proto__"], ["evil", "again"]);
  assert.equal(fields.constructor, "c");
  assert.equal(fields.toString, "t");
  // Nothing reached a prototype.
  assert.equal(({} as Record<string, unknown>).evil, undefined);
  assert.equal(typeof ({}).toString, "function");
  // A name that was not sent reads undefined, not an inherited member.
  assert.equal(fields.hasOwnProperty, undefined);
  assert.equal(fields.valueOf, undefined);
});

Deno.test("FormFields and FormData are the same form; each is built once", async () => {
  const body = "b=2&a=1&b=3";
  const contentType = "application/x-www-form-urlencoded";
  const { fields, form } = await post(body, { contentType, both: true });
  assert.deepEqual([...form!], [["b", "2"], ["a", "1"], ["b", "3"]]);
  assert.deepEqual({ ...fields }, { b: ["2", "3"], a: "1" });

  const router = createRouter();
  router.post("/", formData(), ({ get }) => {
    assert.equal(get(FormData), get(FormData));
    assert.equal(get(FormFields), get(FormFields));
    return new Response("ok");
  });
  const response = await router.fetch(
    new Request("http://localhost/", {
      method: "POST",
      body,
      headers: { "content-type": contentType },
    }),
  );
  assert.equal(response.status, 200);
});

Deno.test("FormFields: no FormData is built for a handler that reads the record only", async () => {
  const Original = globalThis.FormData;
  let made = 0;
  class Counting extends Original {
    constructor() {
      super();
      made++;
    }
  }
  const router = createRouter();
  router.post("/", formData(), ({ get, has }) => {
    // Present (has), but not built until read.
    const present = has(Counting);
    return new Response(`${present} ${get(FormFields)?.name}`);
  });
  globalThis.FormData = Counting;
  try {
    const response = await router.fetch(
      new Request("http://localhost/", {
        method: "POST",
        body: new URLSearchParams({ name: "Ada" }),
      }),
    );
    assert.equal(await response.text(), "true Ada");
    assert.equal(made, 0);
  } finally {
    globalThis.FormData = Original;
  }
});

Deno.test("FormFields: a multipart form, files included", async () => {
  const sent = new FormData();
  sent.append("title", "Hello");
  sent.append("file", new File(["data"], "a.txt", { type: "text/plain" }));
  sent.append("file", new File(["more"], "b.txt", { type: "text/plain" }));
  const { fields } = await post(sent);
  assert.ok(fields !== undefined);
  assert.equal(fields.title, "Hello");
  const files = fields.file as File[];
  assert.deepEqual(files.map((file) => file.name), ["a.txt", "b.txt"]);
  assert.equal(await files[0]!.text(), "data");
  assert.equal(Object.getPrototypeOf(fields), null);
});

Deno.test("FormFields: GET, other content types and an empty body give an empty record", async () => {
  const router = createRouter();
  router.get("/", formData(), ({ get }) => {
    const fields = get(FormFields)!;
    return new Response(`${Object.keys(fields).length} ${[...get(FormData)]}`);
  });
  const response = await router.fetch(new Request("http://localhost/"));
  assert.equal(await response.text(), "0 ");
  const json = await post('{"a":1}', { contentType: "application/json" });
  assert.deepEqual({ ...json.fields }, {});
  const empty = await post("", {
    contentType: "application/x-www-form-urlencoded",
    both: true,
  });
  assert.deepEqual({ ...empty.fields }, {});
  assert.deepEqual([...empty.form!], []);
});

Deno.test("FormFields: made from a FormData an earlier middleware set", async () => {
  const router = createRouter();
  router.post(
    "/",
    (context, next) => {
      const form = new FormData();
      form.append("from", "earlier");
      context.set(FormData, form);
      return next();
    },
    formData(),
    ({ get }) => new Response(String(get(FormFields)?.from)),
  );
  const response = await router.fetch(
    new Request("http://localhost/", {
      method: "POST",
      body: new URLSearchParams({ from: "body" }),
    }),
  );
  assert.equal(await response.text(), "earlier");
});

Deno.test("FormFields: a FormData set after formData() replaces the one not yet built", async () => {
  const router = createRouter();
  router.post("/", formData(), (context, next) => {
    const form = new FormData();
    form.append("replaced", "yes");
    context.set(FormData, form);
    return next();
  }, ({ get }) => new Response([...get(FormData)].join(";")));
  const response = await router.fetch(
    new Request("http://localhost/", {
      method: "POST",
      body: new URLSearchParams({ original: "1" }),
    }),
  );
  assert.equal(await response.text(), "replaced,yes");
});

Deno.test("FormFields: bad bodies get the same 400 and 413 as before", async () => {
  const contentType = "application/x-www-form-urlencoded";
  const malformed = await post("a=%zz", { contentType });
  assert.equal(malformed.status, 400);
  assert.match(malformed.text, /field "a"/);
  const tooMany = await post("a=1&b=2&c=3", {
    contentType,
    limits: { maxFields: 2 },
  });
  assert.equal(tooMany.status, 413);
  assert.match(tooMany.text, /2/);
  assert.match(tooMany.text, /"c"/);
  const tooBig = await post("a=1&b=12345", {
    contentType,
    limits: { maxFieldSize: 4 },
  });
  assert.equal(tooBig.status, 413);
  assert.match(tooBig.text, /"b"/);
  assert.equal(tooBig.fields, undefined);
});
