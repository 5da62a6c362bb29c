/**
 * Passkeys: sign-in from the login page, and the profile's list (add,
 * rename, remove), as this table says.
 *
 * | request                          | who    | then                                                      |
 * | -------------------------------- | ------ | --------------------------------------------------------- |
 * | `POST /passkeys/login/options`   | guest  | sign-in options (JSON); `{ email }` binds the account     |
 * | `POST /passkeys/login`           | guest  | checked, signed in, `{ location }` (JSON); else `400`      |
 * | `POST /passkeys/register/options`| member | creation options naming their passkeys (excluded)         |
 * | `POST /passkeys/register`        | member | stored with its name, `{ location }`; else `400`           |
 * | `PUT /passkeys/:id`              | member | renamed (a form, with `_method`), → profile               |
 * | `DELETE /passkeys/:id`           | member | removed (a form, with `_method`), → profile               |
 *
 * The ceremonies are JSON (the browser's `navigator.credentials` needs a
 * script: `public/passkeys.js`); everything else is plain forms.
 *
 * **Sign-in with an email typed** binds the ceremony to that account:
 * the passkey must be one of its own. The options do not list the
 * account's passkeys (no `allowCredentials`) and look the same for any
 * email, so they do not tell whether an account exists or has passkeys;
 * an email without an account binds to nobody, and every passkey is then
 * refused with the same message as another account's.
 *
 * **Limits.** A failed passkey sign-in spends the client address's budget
 * of failed logins, the same one as a wrong password (`login-address`,
 * 100 an hour, see `login_limits.ts`); a success gives its unit back. The
 * per-email lockout guards guessing a password, which a passkey cannot be;
 * a locked-out owner can still sign in with their passkey. Option
 * requests, which store a challenge in a session, are limited per
 * address too (`passkey_limits.ts`: 60, then one every 10 seconds).
 *
 * @module
 */
import type {
  Controller,
  RequestContext,
} from "@fetchkit/toolkit/fetch-router";
import { formData } from "@fetchkit/toolkit/form-data-middleware";
import { HttpError } from "@fetchkit/toolkit/http-error";
import type { Passkeys } from "@fetchkit/toolkit/passkeys";
import type { RateLimitStore } from "@fetchkit/toolkit/rate-limit-middleware";
import { redirect } from "@fetchkit/toolkit/response/redirect";
import { parseJson } from "@fetchkit/toolkit/validation";
import * as z from "zod";
import { CurrentUser, Session } from "../context.ts";
import { createLoginLimits, LoginSucceeded } from "../login_limits.ts";
import { requireAuth, requireGuest } from "../middleware.ts";
import {
  MAX_PASSKEY_NAME,
  type PasskeyStore,
  PasskeyTakenError,
} from "../passkeys.ts";
import { passkeyOptionsLimit } from "../passkey_limits.ts";
import { confirmFirst } from "../reauth.ts";
import { safeReturnTo } from "../return_to.ts";
import { routes } from "../routes.ts";
import { signIn } from "../sign_in.ts";
import type { UserStore } from "../users.ts";
import { loginPage } from "../views/auth.ts";
import { field } from "./fields.ts";
import { AUTH_FORM_LIMITS, MAX_EMAIL_LENGTH } from "./forms.ts";

/** What the passkeys controller works with. */
export interface PasskeyDeps {
  users: UserStore;
  store: PasskeyStore;
  passkeys: Passkeys;
  /** Where the login limits count. */
  limits: RateLimitStore;
  /** Failed logins per client address per hour. Default 100. */
  addressLimit?: number;
}

/** The ceremonies' bodies are small: 64 KiB is far past any real one. */
const JSON_LIMITS = { maxBytes: 64 * 1024, maxDepth: 8 };

const LoginOptionsBody = z.object({
  email: z.string().trim().max(MAX_EMAIL_LENGTH).optional(),
});
const RegisterBody = z.object({
  name: z.string().trim().max(MAX_PASSKEY_NAME).optional(),
  credential: z.unknown(),
});
const NameForm = z.string().trim().min(1).max(MAX_PASSKEY_NAME);

/** A user id no passkey has: an email typed without an account binds to it. */
const NOBODY = "nobody";

async function bodyOf<S extends z.ZodType>(
  context: RequestContext,
  schema: S,
): Promise<z.output<S>> {
  const result = await parseJson(context.request, schema, JSON_LIMITS);
  if (!result.success) {
    const [name, messages] = Object.entries(result.fieldErrors)[0] ??
      ["body", result.formErrors];
    throw new HttpError(400, `${name}: ${messages?.join(" ")}`);
  }
  return result.value as z.output<S>;
}

/** The default name of a user's next passkey: "Passkey 2". */
function defaultName(count: number): string {
  return `Passkey ${count + 1}`;
}

/** The controller for `routes.passkeys`. */
export function passkeysController(
  deps: PasskeyDeps,
): Controller<typeof routes.passkeys> {
  const { users, store, passkeys } = deps;
  const limits = createLoginLimits({
    store: deps.limits,
    addressLimit: deps.addressLimit,
    emailOf: () => undefined,
    onLimit: (context, { retryAfterMs }) => {
      const minutes = Math.ceil(retryAfterMs / 60_000);
      const message =
        `Too many login attempts. Try again in ${minutes} minutes.`;
      return context.request.headers.get("accept")?.includes("json")
        ? Response.json({ error: message }, { status: 429 })
        : loginPage({ error: message, status: 429 });
    },
  });
  const members = [requireAuth()];
  const optionsLimit = passkeyOptionsLimit(deps.limits);
  const profile = () => redirect(routes.profile.href(), 303);

  return {
    actions: {
      loginOptions: {
        middleware: [requireGuest(), optionsLimit],
        async handler(context) {
          const { email } = await bodyOf(context, LoginOptionsBody);
          let userId: string | undefined;
          if (email) {
            const user = await users.findByEmail(email);
            userId = user ? String(user.id) : NOBODY;
          }
          return Response.json(
            passkeys.authenticationOptions(context, { userId }),
          );
        },
      },
      login: {
        middleware: [requireGuest(), limits.perAddress],
        async handler(context) {
          const credential = await bodyOf(context, z.unknown());
          const result = await passkeys.verifyAuthentication(
            context,
            credential,
            (id) => store.get(id),
          );
          const stored = await store.get(result.passkey.id);
          if (!stored || !(await store.recordUse(stored, result.passkey))) {
            throw new HttpError(
              400,
              "Passkey sign-in: this passkey was used at the same moment elsewhere; try again",
            );
          }
          const user = await users.findById(Number(result.userId));
          if (!user) {
            throw new HttpError(400, "Passkey sign-in: the account is gone");
          }
          context.set(LoginSucceeded, true);
          signIn(context.get(Session)!, user);
          const returnTo = context.url.searchParams.get("returnTo");
          return Response.json({
            location: safeReturnTo(returnTo ?? undefined),
          });
        },
      },
      registerOptions: {
        middleware: [
          ...members,
          confirmFirst(routes.profile.href()),
          optionsLimit,
        ],
        async handler(context) {
          const user = context.get(CurrentUser)!;
          return Response.json(
            await passkeys.registrationOptions(context, {
              id: String(user.id),
              name: user.email,
              displayName: user.name,
              credentials: await store.listByUser(user.id),
            }),
          );
        },
      },
      register: {
        middleware: [...members, confirmFirst(routes.profile.href())],
        async handler(context) {
          const user = context.get(CurrentUser)!;
          const body = await bodyOf(context, RegisterBody);
          const passkey = await passkeys.verifyRegistration(
            context,
            body.credential,
          );
          if (passkey.userId !== String(user.id)) {
            throw new HttpError(
              400,
              "Passkey registration: it was started by another account",
            );
          }
          const count = (await store.listByUser(user.id)).length;
          const name = body.name || defaultName(count);
          try {
            await store.add({
              id: passkey.id,
              userId: passkey.userId,
              publicKey: passkey.publicKey,
              counter: passkey.counter,
              transports: passkey.transports,
              backupEligible: passkey.backupEligible,
              backedUp: passkey.backedUp,
              name,
              createdAt: new Date(),
            });
          } catch (error) {
            if (!(error instanceof PasskeyTakenError)) throw error;
            throw new HttpError(
              400,
              "Passkey registration: this passkey is already registered",
            );
          }
          context.get(Session)!.flash("notice", `Passkey “${name}” added.`);
          return Response.json({ location: routes.profile.href() });
        },
      },
      rename: {
        middleware: [...members, formData(AUTH_FORM_LIMITS)],
        async handler(context) {
          const user = context.get(CurrentUser)!;
          const session = context.get(Session)!;
          const name = NameForm.safeParse(field(context, "name"));
          if (!name.success) {
            session.flash(
              "error",
              `A passkey name is 1 to ${MAX_PASSKEY_NAME} characters.`,
            );
            return profile();
          }
          const renamed = await store.rename(
            user.id,
            context.params.id,
            name.data,
          );
          session.flash(
            renamed ? "notice" : "error",
            renamed ? `Passkey renamed to “${name.data}”.` : "No such passkey.",
          );
          return profile();
        },
      },
      remove: {
        middleware: [...members, formData(AUTH_FORM_LIMITS)],
        async handler(context) {
          const user = context.get(CurrentUser)!;
          const removed = await store.remove(user.id, context.params.id);
          context.get(Session)!.flash(
            removed ? "notice" : "error",
            removed ? "Passkey removed." : "No such passkey.",
          );
          return profile();
        },
      },
    },
  };
}
