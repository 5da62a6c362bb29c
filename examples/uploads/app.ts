/**
 * File uploads streamed into a file storage (a local folder, or an S3
 * bucket that several servers share): `formData()` with a storage upload
 * handler and limits (5 MiB a file, 20 files an upload), a page that lists
 * what was uploaded (read from the storage, so every server behind one
 * bucket lists the same files), downloads, and a page for an upload over a
 * limit (413) that says which limit, and still lists the earlier uploads.
 *
 * @module
 */
import { createRouter, type Router } from "@fetchkit/toolkit/fetch-router";
import { form, route } from "@fetchkit/toolkit/fetch-router/routes";
import {
  formData,
  FormDataLimitError,
  type FormDataParseError,
  FormDataTimeoutError,
} from "@fetchkit/toolkit/form-data-middleware";
import {
  createLocalFileStorage,
  createStorageUploadHandler,
  type FileStorage,
} from "@fetchkit/toolkit/file-storage";
import { html } from "@fetchkit/toolkit/html-template";
import { createHtmlResponse } from "@fetchkit/toolkit/response/html";
import { redirect } from "@fetchkit/toolkit/response/redirect";

/** The app's routes. */
export const routes = route({
  upload: form("/"),
  download: "/files/:id/:name",
});

/** Options of {@linkcode createUploadsApp}. */
export interface UploadsAppOptions {
  /**
   * Where uploads are kept: a local folder, or an S3 bucket that every
   * server of the app shares. Default: `createLocalFileStorage(directory)`.
   */
  storage?: FileStorage;
  /** The folder for the default storage, when `storage` is not given. */
  directory?: string;
  /** Largest file accepted, in bytes. Default 5 MiB. */
  maxFileSize?: number;
  /** Most files in one upload. Default 20. */
  maxFiles?: number;
}

/** An uploaded file, as the list page shows it. */
interface Upload {
  id: string;
  name: string;
  size: number;
  type: string;
}

/** Where uploads are kept in the storage: `uploads/<id>/<name>`. */
const PREFIX = "uploads/";
/** Longest file name kept (keys are at most 1024 bytes). */
const MAX_NAME = 200;

/**
 * The last segment of a client's file name, as browsers send it
 * ("../../etc/passwd" is "passwd"); "unnamed" when nothing is left. A
 * storage refuses keys with a "." or ".." segment.
 */
function baseName(name: string): string {
  const last = name.split(/[\\/]/).pop() ?? "";
  return last === "" || last === "." || last === ".." ? "unnamed" : last;
}

/**
 * `bytes` as people read it, in binary units: "1 byte", "1000 bytes",
 * "1.5 KiB", "5 MiB" (one decimal, dropped when it is 0).
 */
export function formatSize(bytes: number): string {
  if (bytes < 1024) return bytes === 1 ? "1 byte" : `${bytes} bytes`;
  const units = ["KiB", "MiB", "GiB", "TiB"];
  let value = bytes / 1024;
  let unit = 0;
  // 1023.96 KiB would print as "1024.0 KiB": that is 1 MiB.
  while (unit < units.length - 1 && Number(value.toFixed(1)) >= 1024) {
    value /= 1024;
    unit++;
  }
  const rounded = value.toFixed(1).replace(/\.0$/, "");
  return `${rounded} ${units[unit]}`;
}

/** Ids sort in upload order: the time, then randomness. */
function newId(): string {
  return Date.now().toString(36).padStart(10, "0") + "-" +
    crypto.randomUUID().slice(0, 8);
}

/** The uploads in the storage, oldest first. */
async function listUploads(storage: FileStorage): Promise<Upload[]> {
  const uploads: Upload[] = [];
  let cursor: string | undefined;
  do {
    const page = await storage.list({ prefix: PREFIX, cursor });
    for (const file of page.files) {
      const rest = file.key.slice(PREFIX.length);
      const slash = rest.indexOf("/");
      if (slash < 0) continue;
      uploads.push({
        id: rest.slice(0, slash),
        name: rest.slice(slash + 1),
        size: file.size,
        type: file.type,
      });
    }
    cursor = page.cursor;
  } while (cursor !== undefined);
  return uploads;
}

const STYLE = `
  *, *::before, *::after { box-sizing: border-box; }
  body { font: 16px/1.5 system-ui, sans-serif; margin: 0; color: #1d2330;
    background: #f5f6f8; }
  main { max-width: 42rem; margin: 2rem auto; padding: 0 1.5rem; }
  h1 { font-size: 1.6rem; margin: 0 0 1rem; }
  h2 { font-size: 1.15rem; margin: 1.5rem 0 .5rem; }
  /* minmax(0, ...): the file input's own width cannot widen the form. */
  form { display: grid; grid-template-columns: minmax(0, 1fr); gap: .4rem;
    background: #fff; padding: 1rem 1.25rem; border: 1px solid #d8dce3;
    border-radius: 8px; }
  label { font-weight: 600; }
  .hint { margin: 0; color: #4f5768; font-size: .9rem; }
  input[type=file] { font: inherit; width: 100%; }
  button { justify-self: start; font: inherit; padding: .45rem 1rem; border: 0;
    border-radius: 6px; background: #1f4fb8; color: #fff; cursor: pointer; }
  .alert { background: #fdecec; color: #8a1c1c; padding: .6rem 1rem;
    border-radius: 6px; overflow-wrap: anywhere; }
  ul { list-style: none; padding: 0; margin: 0; display: grid; gap: .4rem; }
  li { background: #fff; border: 1px solid #d8dce3; border-radius: 8px;
    padding: .5rem .9rem; overflow-wrap: anywhere; }
  .notice { background: #e7f4ea; color: #1b5e2b; padding: .6rem 1rem;
    border-radius: 6px; }
  li a { color: #1f4fb8; font-weight: 600; }
  .meta { color: #4f5768; }
  @media (max-width: 30rem) { main { margin: 1.25rem auto; padding: 0 1rem; } }
`;

/** What a page shows besides the form. */
interface PageOptions {
  uploads: readonly Upload[];
  limits: { maxFileSize: number; maxFiles: number };
  /** A problem with the last upload, shown above the form. */
  alert?: string;
  /** What the last upload did, shown above the form. */
  notice?: string;
  status?: number;
  /** The heading, for pages other than the list (404). */
  title?: string;
}

function page(options: PageOptions): Response {
  const { uploads, limits, alert, notice } = options;
  const title = options.title ?? "Uploads";
  return createHtmlResponse(
    html`
      <!doctype html>
      <html lang="en">
        <head>
          <meta charset="utf-8">
          <meta name="viewport" content="width=device-width, initial-scale=1">
          <title>${title} · fetchkit uploads example</title>
          <link rel="icon" href="data:,">
          <style>${html.raw(STYLE)}</style>
        </head>
        <body>
          <main>
            <h1>${title}</h1>
            ${alert ? html`<p class="alert" role="alert">${alert}</p>` : null}
            ${notice
              ? html`<p class="notice" role="status">${notice}</p>`
              : null}
            <form method="post" action="${routes.upload.action
              .href()}" enctype="multipart/form-data">
              <label for="files">Files to upload</label>
              <p class="hint" id="files-hint">Up to ${limits
                .maxFiles} files, ${formatSize(limits.maxFileSize)} each.</p>
              <input type="file" id="files" name="files" multiple required
                aria-describedby="files-hint">
              <button>Upload</button>
            </form>
            <h2>Uploaded</h2>
            ${uploads.length === 0
              ? html`<p>Nothing uploaded yet.</p>`
              : html`<ul>${
                uploads.map((file) =>
                  html`<li><a href="${
                    routes.download.href({
                      id: file.id,
                      name: file.name,
                    })
                  }" download>${file.name}</a> <span class="meta">(${
                    formatSize(file.size)
                  }, ${file.type || "unknown type"})</span></li>`
                )
              }</ul>`}
          </main>
        </body>
      </html>
    `,
    { status: options.status },
  );
}

/** What went wrong with an upload, in words, with the limit it broke. */
function describeError(error: FormDataParseError): string {
  if (error instanceof FormDataLimitError) {
    const file = error.fileName === undefined
      ? "A file"
      : `“${error.fileName}”`;
    switch (error.limit) {
      case "maxFileSize":
        return `${file} is too large: the limit is ${
          formatSize(error.max)
        } a file.`;
      case "maxFiles":
        return `Too many files: at most ${error.max} files in one upload.`;
      case "maxTotalSize":
        return `The upload is too large: the limit is ${
          formatSize(error.max)
        } in all.`;
      default:
        return `The form is over a limit (${error.limit}: ${error.max}).`;
    }
  }
  if (error instanceof FormDataTimeoutError) {
    return "The upload took too long and was stopped; please try again.";
  }
  return "The upload could not be read; please try again.";
}

/**
 * Creates the uploads app.
 *
 * @example
 * ```ts
 * import { createMemoryFileStorage } from "@fetchkit/toolkit/file-storage";
 * import { createUploadsApp } from "./app.ts";
 *
 * const app = createUploadsApp({ storage: createMemoryFileStorage() });
 * const page = await app.fetch(new Request("http://localhost/"));
 * await page.body?.cancel();
 * ```
 */
export function createUploadsApp(options: UploadsAppOptions): Router {
  let storage = options.storage;
  if (storage === undefined) {
    if (options.directory === undefined) {
      throw new TypeError("createUploadsApp: give storage or directory");
    }
    storage = createLocalFileStorage(options.directory);
  }
  const store = storage;
  const limits = {
    maxFileSize: options.maxFileSize ?? 5 * 1024 * 1024,
    maxFiles: options.maxFiles ?? 20,
  };
  const listPage = async (rest: Omit<PageOptions, "uploads" | "limits">) =>
    page({ uploads: await listUploads(store), limits, ...rest });
  const router = createRouter({
    defaultHandler: () =>
      listPage({
        title: "Page not found",
        alert: "There is nothing at this address; upload files here instead.",
        status: 404,
      }),
  });
  const parse = formData({
    ...limits,
    // Bytes go straight into the storage as they arrive; the app never
    // holds a file. The client's name is kept in the key, never as a path.
    uploadHandler: createStorageUploadHandler(store, {
      key: (upload) =>
        `${PREFIX}${newId()}/${
          Array.from(baseName(upload.name)).slice(0, MAX_NAME).join("")
        }`,
    }),
    // The list page again, saying what was wrong, with what is uploaded.
    onError: (error) =>
      listPage({ alert: describeError(error), status: error.status }),
  });

  router.map(routes.upload, {
    actions: {
      index: (context) => {
        const count = Number(context.url.searchParams.get("uploaded"));
        return listPage({
          notice: Number.isInteger(count) && count > 0
            ? `Uploaded ${count} ${count === 1 ? "file" : "files"}.`
            : undefined,
        });
      },
      action: {
        middleware: [parse],
        handler: (context) => {
          // A file input left empty sends a part with no file name, which
          // parses to an unnamed empty File: not an upload.
          const files = (context.get(FormData)?.getAll("files") ?? [])
            .filter((file): file is File =>
              file instanceof File && file.name !== ""
            );
          if (files.length === 0) {
            return listPage({
              alert: "Choose at least one file to upload.",
              status: 422,
            });
          }
          return redirect(
            `${routes.upload.index.href()}?uploaded=${files.length}`,
            303,
          );
        },
      },
    },
  });
  router.map(routes.download, async (context) => {
    const { id, name } = context.params;
    const file = /^[0-9a-z]{10}-[0-9a-f]{8}$/.test(id)
      ? await store.get(`${PREFIX}${id}/${name}`)
      : null;
    if (file === null) {
      return listPage({
        title: "File not found",
        alert: "That file is not here (it may have been removed).",
        status: 404,
      });
    }
    return new Response(file.stream(), {
      headers: {
        // Uploads are the clients' content: downloaded, never rendered
        // as a page of this site.
        "Content-Type": "application/octet-stream",
        "Content-Length": String(file.size),
        "Content-Disposition": `attachment; filename*=UTF-8''${
          encodeURIComponent(file.name)
        }`,
        "X-Content-Type-Options": "nosniff",
        "Content-Security-Policy": "sandbox",
      },
    });
  });
  return router;
}
