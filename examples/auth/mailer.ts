/**
 * Sending mail: one small interface, {@linkcode Mailer}, with two
 * transports.
 *
 * - **Console** (development, the default): the message is printed, so
 *   `deno task dev` needs no mail server; the reset link is in the
 *   terminal.
 * - **SMTP** (production): `npm:nodemailer` to the server in `SMTP_URL`
 *   (`smtps://user:password@mail.example.com:465`, or `smtp://...:587`
 *   with STARTTLS), from `MAIL_FROM`. It is imported only when configured.
 *
 * Messages are plain text: nothing in them is HTML, so no value a user
 * typed can become markup in a mail client.
 *
 * @module
 */

/** One message. */
export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  /** An HTML alternative (SMTP only; the console prints the text). */
  html?: string;
}

/** Sends mail; rejects when the transport refused the message. */
export interface Mailer {
  send(message: MailMessage): Promise<void>;
}

/** Prints each message with `log` (default `console.log`). */
export function createConsoleMailer(
  log: (line: string) => void = console.log,
): Mailer {
  return {
    send(message) {
      log(
        `Mail to ${message.to}\nSubject: ${message.subject}\n\n${message.text}\n`,
      );
      return Promise.resolve();
    },
  };
}

/** Options of {@linkcode createSmtpMailer}. */
export interface SmtpMailerOptions {
  /** `smtp://` or `smtps://`, with user and password when the server asks. */
  url: string;
  /** The sender, `"Example <no-reply@example.com>"`. */
  from: string;
  /**
   * Never upgrade a plain `smtp://` connection with STARTTLS (a local
   * relay, tests). Default `false`: nodemailer upgrades when offered.
   */
  ignoreTls?: boolean;
}

/** Sends through an SMTP server with `npm:nodemailer`. */
export async function createSmtpMailer(
  options: SmtpMailerOptions,
): Promise<Mailer & { close(): void }> {
  const { default: nodemailer } = await import("nodemailer");
  const transport = nodemailer.createTransport({
    url: options.url,
    ignoreTLS: options.ignoreTls ?? false,
    // Bounded: a mail server that stalls cannot hold a request's work.
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 20_000,
  });
  return {
    async send(message) {
      await transport.sendMail({ ...message, from: options.from });
    },
    close: () => transport.close(),
  };
}
