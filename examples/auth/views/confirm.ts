/**
 * The confirm page (`/auth/confirm`): the password again, a passkey of
 * the account, or "Confirm with <provider>" for each provider linked to
 * it, before a sensitive change. The passkey part is the login page's
 * script (`public/passkeys.js`) pointed at the confirm endpoints; without
 * JavaScript the password form and the provider buttons (plain forms)
 * still work. An account with none of the three is told to set a password
 * with "Forgot password?".
 *
 * @module
 */
import { html, type SafeHtml } from "@fetchkit/toolkit/html-template";
import { routes } from "../routes.ts";
import type { User } from "../users.ts";
import type { ProviderButton } from "./oauth.ts";
import { passkeyScript } from "./passkeys.ts";
import { page } from "./layout.ts";

/** What the confirm page shows. */
export interface ConfirmPage {
  /** A local path to go back to once confirmed. */
  returnTo: string;
  /** Whether the account has a password that signs in. */
  hasPassword: boolean;
  /** Whether the account has passkeys (then offered, with a nonce). */
  hasPasskeys: boolean;
  /** The providers linked to the account that can confirm. */
  providers?: readonly ProviderButton[];
  nonce?: string;
  error?: string;
  status?: number;
  headers?: HeadersInit;
}

function withReturnTo(href: string, returnTo: string): string {
  return `${href}?returnTo=${encodeURIComponent(returnTo)}`;
}

function passkeyPart(options: ConfirmPage): SafeHtml | null {
  if (!options.hasPasskeys) return null;
  // The ids are the login page's: the same script drives both.
  return html`
    <section class="card passkey" id="passkey-login"
      aria-labelledby="passkey-heading" hidden
      data-options="${routes.confirm.passkeyOptions.href()}"
      data-action="${withReturnTo(
        routes.confirm.passkey.href(),
        options.returnTo,
      )}">
      <h2 id="passkey-heading">${options.hasPassword
        ? "Or use a passkey"
        : "Use a passkey"}</h2>
      <p>Your device asks for your fingerprint, face or PIN.</p>
      <button type="button" class="secondary"
        id="passkey-login-button">Confirm with a passkey</button>
      <p class="field-error" id="passkey-login-error" role="alert" hidden></p>
    </section>
    ${passkeyScript(options.nonce)}
  `;
}

function providerPart(options: ConfirmPage): SafeHtml | null {
  const providers = options.providers ?? [];
  if (providers.length === 0) return null;
  const alone = !options.hasPassword && !options.hasPasskeys;
  return html`
    <section class="card confirm-providers" aria-labelledby="provider-heading">
      <h2 id="provider-heading">${alone
        ? "Confirm with your provider"
        : "Or confirm with your provider"}</h2>
      <p>You sign in there again, even if you are signed in there already.</p>
      ${providers.map((provider) =>
        html`
          <form method="post" action="${withReturnTo(
            routes.confirm.provider.href({ provider: provider.id }),
            options.returnTo,
          )}">
            <button type="submit" class="secondary">Confirm with ${provider
              .name}</button>
          </form>
        `
      )}
    </section>
  `;
}

/** `GET /auth/confirm`. */
export function confirmPage(user: User, options: ConfirmPage): Response {
  const form = options.hasPassword
    ? html`
      <form method="post" action="${withReturnTo(
        routes.confirm.action.href(),
        options.returnTo,
      )}" class="card">
        <input type="hidden" name="email" value="${user
          .email}" autocomplete="username">
        <label for="password">Password</label>
        <input id="password" name="password" type="password" required autofocus
          autocomplete="current-password">
        <button type="submit">Confirm</button>
        <p class="form-aside"><a href="${routes.password.forgot.index
          .href()}">Forgot password?</a></p>
      </form>
    `
    : options.hasPasskeys || (options.providers ?? []).length > 0
    ? null
    : html`
      <p
        class="card">Your account signs in with a provider and has no password or passkey here.
              To confirm it is you, set a password with <a href="${routes
                .password
                .forgot.index
                .href()}">Forgot password?</a> (a link goes to ${user
                .email}), then come back.</p>
    `;
  return page(
    html`
      <p>You are about to change how your account signs in. Confirm it is you, ${user
        .name}.
        You will not be asked again for 10 minutes.</p>
      ${form}
      ${passkeyPart(options)}
      ${providerPart(options)}
      ${options.hasPasskeys && !options.hasPassword
        ? html`<noscript><p>Confirming with a passkey needs JavaScript.</p></noscript>`
        : null}
      <p><a href="${routes.security.href()}">Cancel</a></p>
    `,
    {
      title: "Confirm it is you",
      user,
      error: options.error,
      status: options.status,
      headers: options.headers,
    },
  );
}
