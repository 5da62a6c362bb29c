/**
 * Checks a registration before anything is stored. Each problem is a
 * message for the form, never an exception.
 *
 * @module
 */
import { fitsBcrypt, MAX_PASSWORD_BYTES } from "../passwords.ts";

/** What the register form sends, trimmed. */
export interface Registration {
  email: string;
  name: string;
  password: string;
}

export const MIN_PASSWORD_LENGTH = 8;
const MAX_EMAIL_LENGTH = 254;
const MAX_NAME_LENGTH = 100;
// One @, something on both sides, a dot in the domain, no spaces.
const EMAIL_SHAPE = /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/;

/** The first problem with `input`, or `undefined` when it is fine. */
export function validateRegistration(input: Registration): string | undefined {
  if (input.name === "") return "Please enter your name.";
  if (input.name.length > MAX_NAME_LENGTH) {
    return `Your name can be at most ${MAX_NAME_LENGTH} characters.`;
  }
  if (input.email.length > MAX_EMAIL_LENGTH || !EMAIL_SHAPE.test(input.email)) {
    return "Please enter a valid email address.";
  }
  if (input.password.length < MIN_PASSWORD_LENGTH) {
    return `Your password must be at least ${MIN_PASSWORD_LENGTH} characters.`;
  }
  if (!fitsBcrypt(input.password)) {
    return `Your password can be at most ${MAX_PASSWORD_BYTES} bytes.`;
  }
  return undefined;
}
