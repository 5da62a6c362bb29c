/**
 * Content types by file extension, for `serveStatic`.
 *
 * @module
 */

/**
 * Content types by file extension: the ones a web app's public folder
 * holds. Text types carry `charset=utf-8`. Anything else is
 * `application/octet-stream` (unless the caller adds it with `mimeTypes`).
 */
const UTF8 = "; charset=utf-8";

export const MIME_TYPES: Readonly<Record<string, string>> = {
  html: "text/html" + UTF8,
  htm: "text/html" + UTF8,
  css: "text/css" + UTF8,
  js: "text/javascript" + UTF8,
  mjs: "text/javascript" + UTF8,
  cjs: "text/javascript" + UTF8,
  json: "application/json" + UTF8,
  map: "application/json" + UTF8,
  webmanifest: "application/manifest+json" + UTF8,
  txt: "text/plain" + UTF8,
  md: "text/markdown" + UTF8,
  csv: "text/csv" + UTF8,
  xml: "application/xml" + UTF8,
  svg: "image/svg+xml" + UTF8,
  ics: "text/calendar" + UTF8,
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  gif: "image/gif",
  webp: "image/webp",
  avif: "image/avif",
  ico: "image/x-icon",
  bmp: "image/bmp",
  woff: "font/woff",
  woff2: "font/woff2",
  ttf: "font/ttf",
  otf: "font/otf",
  pdf: "application/pdf",
  wasm: "application/wasm",
  zip: "application/zip",
  gz: "application/gzip",
  tar: "application/x-tar",
  mp3: "audio/mpeg",
  wav: "audio/wav",
  ogg: "audio/ogg",
  oga: "audio/ogg",
  m4a: "audio/mp4",
  mp4: "video/mp4",
  webm: "video/webm",
  ogv: "video/ogg",
  vtt: "text/vtt" + UTF8,
};

/** The content type of `name` by its extension (case-insensitive). */
export function contentTypeOf(
  name: string,
  extra: Readonly<Record<string, string>> | undefined,
): string {
  const dot = name.lastIndexOf(".");
  if (dot <= 0) return "application/octet-stream";
  const extension = name.slice(dot + 1).toLowerCase();
  return extra?.[extension] ?? MIME_TYPES[extension] ??
    "application/octet-stream";
}
