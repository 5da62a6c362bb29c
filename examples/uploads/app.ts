/**
 * File uploads streamed to disk: `formData()` with a disk upload handler
 * and limits (5 MiB a file, 20 files an upload), a page that lists what
 * was uploaded, and a page for an upload over a limit (413) that says
 * which limit, and still lists the earlier uploads.
 *
 * @module
 */
import { createRouter, type Router } from "@fetchkit/toolkit/fetch-router";
import { form, route } from "@fetchkit/toolkit/fetch-router/routes";
import {
  createDiskUploadHandler,
  DiskFile,
  formData,
  FormDataLimitError,
  type FormDataParseError,
  FormDataTimeoutError,
} from "@fetchkit/toolkit/form-data-middleware";
import { html } from "@fetchkit/toolkit/html-template";
import { createHtmlResponse } from "@fetchkit/toolkit/response/html";
import { redirect } from "@fetchkit/toolkit/response/redirect";

/** The app's routes. */
export const routes = route({ upload: form("/") });

/** Options of {@linkcode createUploadsApp}. */
export interface UploadsAppOptions {
  /** Where uploads are kept. */
  directory: string;
  /** Largest file accepted, in bytes. Default 5 MiB. */
  maxFileSize?: number;
  /** Most files in one upload. Default 20. */
  maxFiles?: number;
}

/** An uploaded file, as the list page shows it. */
interface Upload {
  name: string;
  size: number;
  type: string;
  path: string;
}

/** `bytes` as people read it: "5 MiB", "1 KiB", or "1000 bytes". */
export function formatSize(bytes: number): string {
  for (
    const [unit, size] of [["GiB", 2 ** 30], ["MiB", 2 ** 20], [
      "KiB",
      2 ** 10,
    ]] as const
  ) {
    if (bytes >= size) {
      const value = bytes / size;
      return `${Number.isInteger(value) ? value : value.toFixed(1)} ${unit}`;
    }
  }
  return `${bytes} bytes`;
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
  .meta { color: #4f5768; }
  @media (max-width: 30rem) { main { margin: 1.25rem auto; padding: 0 1rem; } }
`;

/** What a page shows besides the form. */
interface PageOptions {
  uploads: readonly Upload[];
  limits: { maxFileSize: number; maxFiles: number };
  /** A problem with the last upload, shown above the form. */
  alert?: string;
  status?: number;
  /** The heading, for pages other than the list (404). */
  title?: string;
}

function page(options: PageOptions): Response {
  const { uploads, limits, alert } = options;
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
                  html`<li>${file.name} <span class="meta">(${
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
 * import { createUploadsApp } from "./app.ts";
 *
 * const directory = await Deno.makeTempDir({ prefix: "fetchkit-uploads-" });
 * const app = createUploadsApp({ directory });
 * const page = await app.fetch(new Request("http://localhost/"));
 * await page.body?.cancel();
 * await Deno.remove(directory, { recursive: true });
 * ```
 */
export function createUploadsApp(options: UploadsAppOptions): Router {
  const uploads: Upload[] = [];
  const limits = {
    maxFileSize: options.maxFileSize ?? 5 * 1024 * 1024,
    maxFiles: options.maxFiles ?? 20,
  };
  const router = createRouter({
    defaultHandler: () =>
      page({
        uploads,
        limits,
        title: "Page not found",
        alert: "There is nothing at this address; upload files here instead.",
        status: 404,
      }),
  });
  const parse = formData({
    ...limits,
    // Bytes go straight to disk as they arrive; the app never holds a file.
    uploadHandler: createDiskUploadHandler({ directory: options.directory }),
    // The list page again, saying what was wrong, with what is uploaded.
    onError: (error) =>
      page({
        uploads,
        limits,
        alert: describeError(error),
        status: error.status,
      }),
  });

  router.map(routes.upload, {
    actions: {
      index: () => page({ uploads, limits }),
      action: {
        middleware: [parse],
        handler: (context) => {
          for (const file of context.get(FormData)?.getAll("files") ?? []) {
            if (file instanceof DiskFile && file.size > 0) {
              uploads.push({
                name: file.name,
                size: file.size,
                type: file.type,
                path: file.path,
              });
            }
          }
          return redirect(routes.upload.index.href(), 303);
        },
      },
    },
  });
  return router;
}
