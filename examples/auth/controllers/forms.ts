/**
 * The auth forms' fields, bounded where they enter: one schema per form
 * (zod), read with `parseForm()`, gives checked values or each field's
 * problems to show beside it. Nothing longer than these bounds reaches
 * KV, the login limiter, the session or bcrypt.
 *
 * | field      | bound                                   | why                                        |
 * | ---------- | --------------------------------------- | ------------------------------------------ |
 * | `email`    | 254 characters (RFC 5321's path limit)  | a KV key (limiter, email index) and a flash |
 * | `name`     | 100 characters                          | shown on pages, flashed back on a failure  |
 * | `password` | 8 characters to 72 bytes of UTF-8, no NUL | bcrypt reads 72 bytes and stops at a NUL  |
 *
 * The body itself is limited first, by {@linkcode AUTH_FORM_LIMITS}: a
 * field over 4 KiB, more than 8 fields or any file ends the request with
 * `413` before the schemas run.
 *
 * @module
 */
import {
  formData,
  FormDataLimitError,
  type FormDataOptions,
  type FormDataParseError,
} from "@fetchkit/toolkit/form-data-middleware";
import type { Middleware } from "@fetchkit/toolkit/fetch-router";
import { CurrentUser } from "../context.ts";
import type { User } from "../users.ts";
import type { ParseFormResult } from "@fetchkit/toolkit/form-validation";
import * as z from "zod";
import { MAX_PASSWORD_BYTES, MIN_PASSWORD_LENGTH } from "../passwords.ts";

/** Limits of `formData()` on the auth forms: a few small text fields. */
export const AUTH_FORM_LIMITS: FormDataOptions = {
  maxFieldSize: 4 * 1024,
  maxFields: 8,
  maxFiles: 0,
  maxTotalSize: 16 * 1024,
};

export { MIN_PASSWORD_LENGTH };
export const MAX_EMAIL_LENGTH = 254;
export const MAX_NAME_LENGTH = 100;

// One @, something on both sides, a dot in the domain, no spaces.
const EMAIL_SHAPE = /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/;
const encoder = new TextEncoder();

const NUL = "Your password cannot contain a NUL character.";
const TOO_LONG = `Your password can be at most ${MAX_PASSWORD_BYTES} bytes.`;
const TOO_SHORT =
  `Your password must be at least ${MIN_PASSWORD_LENGTH} characters.`;
const NO_NAME = "Please enter your name.";
const BAD_EMAIL = "Please enter a valid email address.";
// A field sent twice arrives as an array: say so, not zod's type names.
const ONCE = "Send this field once.";

/** A password bcrypt reads whole: no NUL, at most 72 bytes of UTF-8. */
function bcryptReadable<T extends z.ZodType<string>>(schema: T) {
  return schema
    .refine((password) => !password.includes("\0"), NUL)
    .refine(
      (password) => encoder.encode(password).length <= MAX_PASSWORD_BYTES,
      TOO_LONG,
    );
}

/**
 * The login form. Only input that could never match a stored account is
 * refused here (an email too long, a password bcrypt cannot read); a
 * missing field is an empty string, which goes on to
 * the limiter and the password check like any other wrong guess.
 */
export const LoginForm = z.object({
  email: z.string({ error: ONCE }).default("").pipe(
    z.string().trim().max(
      MAX_EMAIL_LENGTH,
      `An email address has at most ${MAX_EMAIL_LENGTH} characters.`,
    ),
  ),
  password: z.string({ error: ONCE }).default("").pipe(
    bcryptReadable(z.string()),
  ),
});

/** What the login form gives: a trimmed email and the password. */
export type Login = z.output<typeof LoginForm>;

/** The register form: every field required, every problem shown. */
export const RegistrationForm = z.object({
  name: z.string({ error: NO_NAME }).trim().min(1, NO_NAME).max(
    MAX_NAME_LENGTH,
    `Your name can be at most ${MAX_NAME_LENGTH} characters.`,
  ),
  email: z.string({ error: BAD_EMAIL }).trim().refine(
    (email) => email.length <= MAX_EMAIL_LENGTH && EMAIL_SHAPE.test(email),
    BAD_EMAIL,
  ),
  password: bcryptReadable(
    z.string({ error: TOO_SHORT }).min(MIN_PASSWORD_LENGTH, TOO_SHORT),
  ),
});

/** What the register form gives: trimmed name and email, the password. */
export type Registration = z.output<typeof RegistrationForm>;

/**
 * The page's message for a form body `formData()` refused: over
 * {@linkcode AUTH_FORM_LIMITS} (413) or malformed (400).
 */
export function unreadableProblem(error: FormDataParseError): string {
  return error instanceof FormDataLimitError
    ? "That form is larger than this page sends; please fill it in again."
    : "That form could not be read; please try again.";
}

/**
 * `formData()` for a signed-in user's form: a body it refuses (over
 * {@linkcode AUTH_FORM_LIMITS}, or malformed) shows `page` again with
 * {@linkcode unreadableProblem}'s message and the refusal's status.
 */
export function signedInFormData(
  page: (options: { user: User; error: string; status: number }) => Response,
): Middleware {
  return formData({
    ...AUTH_FORM_LIMITS,
    onError: (error, context) =>
      page({
        user: context.get(CurrentUser)!,
        error: unreadableProblem(error),
        status: error.status,
      }),
  });
}

/** A form sent back: each field's problems, and what to fill in again. */
export interface FormProblems {
  /** Messages by field name (`email`, `name`, `password`). */
  fields: Record<string, string[]>;
  /** Messages about the form as a whole (a field name that was refused). */
  form: string[];
  /** The submitted email and name, trimmed and bounded; never the password. */
  values: { email?: string; name?: string };
}

const SHOWN_AGAIN = { email: MAX_EMAIL_LENGTH, name: MAX_NAME_LENGTH };

/**
 * The problems of a refused form, and the values a page may show again:
 * text only, trimmed, at most each field's bound (a page never echoes
 * kilobytes), and never the password.
 */
export function problemsOf(
  result: Extract<ParseFormResult<unknown>, { success: false }>,
): FormProblems {
  const values: FormProblems["values"] = {};
  for (const [name, max] of Object.entries(SHOWN_AGAIN)) {
    const value = result.values[name];
    if (typeof value === "string") {
      values[name as keyof typeof SHOWN_AGAIN] = value.trim().slice(0, max);
    }
  }
  return { fields: result.fieldErrors, form: result.formErrors, values };
}
