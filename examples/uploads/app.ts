/**
 * File uploads streamed to disk: `formData()` with a disk upload handler
 * and a size limit, a page that lists what was uploaded, and a friendly
 * page for a file over the limit (413).
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
} from "@fetchkit/toolkit/form-data-middleware";
import { html, type SafeHtml } from "@fetchkit/toolkit/html-template";
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

function page(content: SafeHtml, status = 200): Response {
  return createHtmlResponse(
    html`
      <!doctype html>
      <html lang="en">
        <head>
          <meta charset="utf-8">
          <title>Uploads</title>
        </head>
        <body>
          <h1>Uploads</h1>
          ${content}
          <form method="post" action="${routes.upload.action
            .href()}" enctype="multipart/form-data">
            <input type="file" name="files" multiple required>
            <button>Upload</button>
          </form>
        </body>
      </html>
    `,
    { status },
  );
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
  const maxFileSize = options.maxFileSize ?? 5 * 1024 * 1024;
  const router = createRouter();
  const parse = formData({
    maxFileSize,
    // Bytes go straight to disk as they arrive; the app never holds a file.
    uploadHandler: createDiskUploadHandler({ directory: options.directory }),
    onError: (error) =>
      page(
        html`<p role="alert">${
          error instanceof FormDataLimitError
            ? `That file is too large: the limit is ${formatSize(maxFileSize)}.`
            : "The upload could not be read; please try again."
        }</p>`,
        error.status,
      ),
  });

  router.map(routes.upload, {
    actions: {
      index: () =>
        page(
          html`<ul>${
            uploads.map((file) =>
              html`<li>${file.name} (${file.size} bytes, ${
                file.type || "unknown type"
              })</li>`
            )
          }</ul>`,
        ),
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
