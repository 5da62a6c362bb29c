/**
 * The little XML S3 answers with, read without a parser: its documents
 * are flat, and every value is read from one known element.
 *
 * @module
 */

const ENTITIES: Record<string, string> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
};

/** Text with XML's entities and character references decoded. */
export function decodeXml(text: string): string {
  return text.replace(/&(#x[0-9a-fA-F]+|#\d+|\w+);/g, (whole, name: string) => {
    if (name.startsWith("#x")) {
      return String.fromCodePoint(Number.parseInt(name.slice(2), 16));
    }
    if (name.startsWith("#")) {
      return String.fromCodePoint(Number.parseInt(name.slice(1), 10));
    }
    return ENTITIES[name] ?? whole;
  });
}

/** `text` with `&`, `<`, `>` escaped, for an element's content. */
export function escapeXml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(
    />/g,
    "&gt;",
  ).replace(/"/g, "&quot;");
}

/** The decoded text of every `<tag>` element in `xml`. */
export function all(xml: string, tag: string): string[] {
  const pattern = new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`, "g");
  return [...xml.matchAll(pattern)].map((match) => match[1]);
}

/** The decoded text of the first `<tag>` in `xml`, or `undefined`. */
export function first(xml: string, tag: string): string | undefined {
  const found = all(xml, tag)[0];
  return found === undefined ? undefined : decodeXml(found);
}
