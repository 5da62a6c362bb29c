/**
 * Re-authentication: `/auth/confirm` asks the signed-in user for their
 * password again, a passkey of their account, or to sign in again at a
 * provider linked to it (`confirm_provider.ts`), and marks the session
 * (`markReauthenticated()`) so the pages behind `confirmFirst()` let it
 * through for 10 minutes.
 *
 * | request | when | then |
 * | ------- | ---- | ---- |
 * | `GET /auth/confirm?returnTo=` | signed in | the password form, and "Confirm with a passkey" when the account has one |
 * | `POST /auth/confirm` | the password matches | marked, `303` → `returnTo` |
 * | `POST /auth/confirm` | it does not | the page again, `422`, "That password is not right" |
 * | `POST /auth/confirm` | the 6th try in 15 minutes | `429` with `Retry-After` |
 * | `POST /auth/confirm/passkey/options`, `/auth/confirm/passkey` | a passkey of this account | marked, `{ location: returnTo }` |
 * | `POST /auth/confirm/provider/:provider` | a provider linked to this account | on to the provider (see `confirm_provider.ts`) |
 *
 * Wrong passwords count as login attempts do: 5 per account in 15
 * minutes (a lockout of this form only, not of the login), and against
 * the client address's budget of failed logins. A guest is sent to the
 * login page.
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
import { markReauthenticated } from "@fetchkit/toolkit/reauth-middleware";
import { redirect } from "@fetchkit/toolkit/response/redirect";
import { CspNonce } from "@fetchkit/toolkit/secure-headers-middleware";
import { parseJson } from "@fetchkit/toolkit/validation";
import * as z from "zod";
import { CurrentUser, Session } from "../context.ts";
import { createLoginLimits, LoginSucceeded } from "../login_limits.ts";
import { requireAuth } from "../middleware.ts";
import type { PasskeyStore } from "../passkeys.ts";
import type { Passwords } from "../passwords.ts";
import { safeReturnTo } from "../return_to.ts";
import { routes } from "../routes.ts";
import type { User } from "../users.ts";
import { confirmPage } from "../views/confirm.ts";
import { tooManyAttempts } from "./auth.ts";
import { field } from "./fields.ts";
import { AUTH_FORM_LIMITS } from "./forms.ts";
import type { ProviderConfirm } from "./confirm_provider.ts";
import { notFoundPage } from "../views/errors.ts";

/** What the confirm controller works with. */
export interface ConfirmDeps {
  passwords: Passwords;
  passkeyStore: PasskeyStore;
  passkeys: Passkeys;
  limits: RateLimitStore;
  /** Failed logins per client address per hour. Default 100. */
  addressLimit?: number;
  /** "Confirm with <provider>" (none without providers). */
  providerConfirm?: ProviderConfirm;
}

export const WRONG_PASSWORD =
  "That password is not right. Type it again, or use “Forgot password?”.";

/** `returnTo` of the query when it is a local path, else the security page. */
function returnToOf(context: RequestContext): string {
  const value = context.url.searchParams.get("returnTo");
  return value === null ? routes.security.href() : safeReturnTo(value);
}

/** The controller for `routes.confirm`. */
export function confirmController(
  deps: ConfirmDeps,
): Controller<typeof routes.confirm> {
  const { passwords, passkeyStore, passkeys } = deps;

  async function render(
    context: RequestContext,
    options: { error?: string; status?: number; headers?: HeadersInit } = {},
  ): Promise<Response> {
    const user = context.get(CurrentUser)!;
    const keys = await passkeyStore.listByUser(user.id);
    return confirmPage(user, {
      returnTo: returnToOf(context),
      hasPassword: !user.passwordUnusable,
      hasPasskeys: keys.length > 0,
      providers: await deps.providerConfirm?.linked(user),
      nonce: context.get(CspNonce),
      ...options,
    });
  }

  const limits = createLoginLimits({
    store: deps.limits,
    addressLimit: deps.addressLimit,
    emailOf: (context) => {
      const user = context.get(CurrentUser);
      return user ? `confirm:${user.id}` : undefined;
    },
    onLimit: (context, { retryAfterMs }) => {
      const error = tooManyAttempts(retryAfterMs).replace("login", "password");
      return context.request.headers.get("accept")?.includes("json")
        ? Response.json({ error }, { status: 429 })
        : confirmPage(context.get(CurrentUser)!, {
          returnTo: returnToOf(context),
          hasPassword: !context.get(CurrentUser)!.passwordUnusable,
          hasPasskeys: false,
          error,
          status: 429,
        });
    },
  });
  const members = [requireAuth()];

  function confirmed(context: RequestContext, method: "password" | "passkey") {
    markReauthenticated(context.get(Session)!, method);
    context.set(LoginSucceeded, true);
    const user = context.get(CurrentUser)!;
    return limits.perEmail.reset(`confirm:${user.id}`);
  }

  const providerConfirm = deps.providerConfirm;
  return {
    actions: {
      provider: providerConfirm?.start ?? {
        middleware: members,
        handler: (context) => notFoundPage(context.get(CurrentUser)),
      },
      index: {
        middleware: members,
        handler: (context) =>
          render(context, { error: context.get(Session)!.get("error") }),
      },
      action: {
        middleware: [
          ...members,
          formData(AUTH_FORM_LIMITS),
          limits.perAddress,
          limits.perEmail,
        ],
        async handler(context) {
          const user: User = context.get(CurrentUser)!;
          const password = field(context, "password");
          // A password that cannot sign in cannot confirm either.
          const match = !user.passwordUnusable && password !== "" &&
            await passwords.verify(password, user.password);
          if (!match) {
            return render(context, { error: WRONG_PASSWORD, status: 422 });
          }
          await confirmed(context, "password");
          return redirect(returnToOf(context), 303);
        },
      },
      passkeyOptions: {
        middleware: members,
        async handler(context) {
          const user = context.get(CurrentUser)!;
          const credentials = await passkeyStore.listByUser(user.id);
          return Response.json(
            passkeys.authenticationOptions(context, {
              userId: String(user.id),
              credentials,
            }),
          );
        },
      },
      passkey: {
        middleware: [...members, limits.perAddress],
        async handler(context) {
          const user = context.get(CurrentUser)!;
          const body = await parseJson(context.request, z.unknown(), {
            maxBytes: 64 * 1024,
            maxDepth: 8,
          });
          if (!body.success) {
            throw new HttpError(400, "Passkey confirmation: unreadable body");
          }
          const result = await passkeys.verifyAuthentication(
            context,
            body.value,
            (id) => passkeyStore.get(id),
          );
          if (result.userId !== String(user.id)) {
            throw new HttpError(
              400,
              "Passkey confirmation: this passkey belongs to another account",
            );
          }
          const stored = await passkeyStore.get(result.passkey.id);
          if (
            !stored || !(await passkeyStore.recordUse(stored, result.passkey))
          ) {
            throw new HttpError(
              400,
              "Passkey confirmation: this passkey was used at the same moment elsewhere; try again",
            );
          }
          await confirmed(context, "passkey");
          return Response.json({ location: returnToOf(context) });
        },
      },
    },
  };
}
