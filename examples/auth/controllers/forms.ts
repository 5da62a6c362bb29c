/**
 * The auth forms' fields, bounded where they enter: each form has one
 * reader here that turns the parsed `FormData` into checked values or a
 * problem to show on the form. Nothing longer than these bounds reaches
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
 * `413` before these readers run.
 *
 * @module
 */
import type { FormDataOptions } from "@fetchkit/toolkit/form-data-middleware";
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

/** A form's checked values, or the first problem and what to show again. */
export type FormResult<T> =
  | { ok: true; value: T }
  | { ok: false; problem: string; echo: Partial<T> };

/** What the login form sends. */
export interface Login {
  /** Trimmed; at most {@linkcode MAX_EMAIL_LENGTH} characters. */
  email: string;
  password: string;
}

/** What the register form sends. */
export interface Registration {
  /** Trimmed; a valid address of at most {@linkcode MAX_EMAIL_LENGTH}. */
  email: string;
  /** Trimmed; 1 to {@linkcode MAX_NAME_LENGTH} characters. */
  name: string;
  /** {@linkcode MIN_PASSWORD_LENGTH} characters to 72 bytes, no NUL. */
  password: string;
}

/** The text of field `name`; `""` when missing or a file (the seed's rule). */
function text(form: FormData, name: string): string {
  const value = form.get(name);
  return typeof value === "string" ? value : "";
}

/** At most `max` characters of `value`: what a page may show again. */
function bounded(value: string, max: number): string {
  return value.length <= max ? value : value.slice(0, max);
}

/** The problem with a password bcrypt could not read whole, if any. */
function passwordProblem(password: string): string | undefined {
  if (password.includes("\0")) {
    return "Your password cannot contain a NUL character.";
  }
  if (encoder.encode(password).length > MAX_PASSWORD_BYTES) {
    return `Your password can be at most ${MAX_PASSWORD_BYTES} bytes.`;
  }
  return undefined;
}

/**
 * Reads the login form. Only input that could never match a stored
 * account is refused here (an email too long, a password bcrypt cannot
 * read); anything else goes on to the limiter and the password check.
 */
export function readLogin(form: FormData): FormResult<Login> {
  const email = text(form, "email").trim();
  const password = text(form, "password");
  const echo = { email: bounded(email, MAX_EMAIL_LENGTH) };
  if (email.length > MAX_EMAIL_LENGTH) {
    return {
      ok: false,
      problem: `An email address has at most ${MAX_EMAIL_LENGTH} characters.`,
      echo,
    };
  }
  const problem = passwordProblem(password);
  if (problem) return { ok: false, problem, echo };
  return { ok: true, value: { email, password } };
}

/** Reads the register form; the first problem wins. */
export function readRegistration(form: FormData): FormResult<Registration> {
  const input = {
    email: text(form, "email").trim(),
    name: text(form, "name").trim(),
    password: text(form, "password"),
  };
  const echo = {
    email: bounded(input.email, MAX_EMAIL_LENGTH),
    name: bounded(input.name, MAX_NAME_LENGTH),
  };
  const fail = (problem: string) => ({ ok: false as const, problem, echo });
  if (input.name === "") return fail("Please enter your name.");
  if (input.name.length > MAX_NAME_LENGTH) {
    return fail(`Your name can be at most ${MAX_NAME_LENGTH} characters.`);
  }
  if (
    input.email.length > MAX_EMAIL_LENGTH || !EMAIL_SHAPE.test(input.email)
  ) {
    return fail("Please enter a valid email address.");
  }
  if (input.password.length < MIN_PASSWORD_LENGTH) {
    return fail(
      `Your password must be at least ${MIN_PASSWORD_LENGTH} characters.`,
    );
  }
  const problem = passwordProblem(input.password);
  if (problem) return fail(problem);
  return { ok: true, value: input };
}
