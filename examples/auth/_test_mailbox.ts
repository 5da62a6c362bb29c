// Test helper: a mailer that keeps every message, and finds the link in one.
import type { Mailer, MailMessage } from "./mailer.ts";

export interface Mailbox {
  mailer: Mailer;
  mails: MailMessage[];
  /** Waits (at most 5 s) for a mail to `to` whose subject matches. */
  next(to: string, subject?: RegExp): Promise<MailMessage>;
  /** The path of the link in a mail (`/email/verify/...`). */
  link(mail: MailMessage): string;
}

export function createMailbox(): Mailbox {
  const mails: MailMessage[] = [];
  const taken = new Set<MailMessage>();
  return {
    mails,
    mailer: {
      send(message) {
        mails.push(message);
        return Promise.resolve();
      },
    },
    async next(to, subject) {
      for (let i = 0; i < 500; i++) {
        const mail = mails.find((m) =>
          !taken.has(m) && m.to.toLowerCase() === to.toLowerCase() &&
          (!subject || subject.test(m.subject))
        );
        if (mail) {
          taken.add(mail);
          return mail;
        }
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      throw new Error(`no mail to ${to} ${subject ?? ""}`);
    },
    link(mail) {
      const match = mail.text.match(/https?:\/\/\S+/);
      if (!match) throw new Error(`no link in: ${mail.text}`);
      return new URL(match[0]).pathname;
    },
  };
}
