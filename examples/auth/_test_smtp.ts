// Test helper: a real SMTP server (npm:smtp-server) on a free 127.0.0.1
// port that keeps every message it receives, decoded enough to read the
// text (quoted-printable soft breaks and escapes undone).
import { SMTPServer } from "smtp-server";
import { freePort } from "../../_tools/redis.ts";

/** A message as the server received it. */
export interface ReceivedMail {
  from: string;
  to: string[];
  /** The whole message, headers and body, quoted-printable decoded. */
  text: string;
}

/** A running SMTP server. */
export interface SmtpSink {
  url: string;
  mails: ReceivedMail[];
  /** Waits for message number `n` (1-based), at most 10 s. */
  mail(n: number): Promise<ReceivedMail>;
  stop(): Promise<void>;
}

function decodeQuotedPrintable(raw: string): string {
  return raw.replace(/=\r?\n/g, "").replace(
    /=([0-9A-F]{2})/g,
    (_, hex: string) => String.fromCharCode(parseInt(hex, 16)),
  );
}

/** Starts the server; plain SMTP, no authentication, no STARTTLS. */
export async function startSmtpSink(): Promise<SmtpSink> {
  const mails: ReceivedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS", "AUTH"],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Uint8Array[] = [];
      stream.on("data", (chunk: Uint8Array) => chunks.push(chunk));
      stream.on("end", () => {
        const raw = new TextDecoder().decode(
          new Uint8Array(chunks.flatMap((c) => [...c])),
        );
        mails.push({
          from: session.envelope.mailFrom
            ? session.envelope.mailFrom.address
            : "",
          to: session.envelope.rcptTo.map((r) => r.address),
          text: decodeQuotedPrintable(raw),
        });
        callback();
      });
    },
  });
  const port = freePort();
  await new Promise<void>((resolve) =>
    server.listen(port, "127.0.0.1", resolve)
  );
  return {
    url: `smtp://127.0.0.1:${port}`,
    mails,
    async mail(n) {
      for (let i = 0; i < 1000 && mails.length < n; i++) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      if (mails.length < n) throw new Error(`mail ${n} never came`);
      return mails[n - 1];
    },
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
