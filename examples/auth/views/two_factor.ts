/**
 * The two-factor pages: setting it up (the QR code as inline SVG, the
 * `otpauth://` link for a phone, the secret in groups of four), the
 * backup codes shown once, turning it off, and the sign-in's second step.
 * Every form works without JavaScript.
 *
 * @module
 */
import { html, type SafeHtml } from "@fetchkit/toolkit/html-template";
import { routes } from "../routes.ts";
import type { User } from "../users.ts";
import { groupsOfFour, PENDING_SIGN_IN_MS } from "../two_factor.ts";
import { page } from "./layout.ts";

/** Said wherever a second factor is asked for or set up. */
const PASSKEY_SKIPS = html`
  <p
    class="form-aside">Signing in with a passkey skips this step: a passkey is already two factors (your device, and your fingerprint, face or PIN).</p>
`;

/** The code field: a TOTP code or a backup code. */
function codeField(
  label: string,
  error: string | undefined,
  hint: string,
): SafeHtml {
  return html`
    <label for="code">${label}</label>
    <p class="form-aside" id="code-hint">${hint}</p>
    <input id="code" name="code" class="code" required maxlength="20"
      autocomplete="one-time-code" autocapitalize="none" spellcheck="false"
      ${html.attrs({
        "aria-describedby": error ? "code-hint code-error" : "code-hint",
        "aria-invalid": error ? "true" : null,
        autofocus: error ? true : null,
      })}>
    ${error ? html`<p class="field-error" id="code-error">${error}</p>` : null}
  `;
}

/** What the set-up page shows. */
export interface SetupPage {
  secret: string;
  uri: string;
  /** The QR code of `uri` (`totpQrSvg()`), trusted markup. */
  svg: string;
  /** A refused code, shown beside the field. */
  error?: string;
  status?: number;
}

/** `GET /profile/two-factor` while 2FA is off: scan, then type a code. */
export function setupPage(user: User, options: SetupPage): Response {
  return page(
    html`
      <section class="card" aria-labelledby="setup-heading">
        <h2 id="setup-heading">Set up an authenticator app</h2>
        <ol class="steps">
          <li>Open an authenticator app (Google Authenticator, Microsoft Authenticator, 1Password, Aegis, ...).</li>
          <li>Scan this QR code, or on this phone <a href="${options
            .uri}">add the account to your app</a>.</li>
        </ol>
        <div class="qr">${html.raw(options.svg)}</div>
        <p>Or type this key into the app:</p>
        <p><code class="secret" id="totp-secret">${groupsOfFour(
          options.secret,
        )}</code></p>
      </section>
      <form method="post" action="${routes.twoFactor.enable
        .href()}" class="card code-form">
        ${codeField(
          "Code from the app",
          options.error,
          "Type the 6-digit code the app shows now.",
        )}
        <button type="submit">Turn on two-factor authentication</button>
      </form>
      ${PASSKEY_SKIPS}
      <p><a href="${routes.security.href()}">Back to security</a></p>
    `,
    {
      title: "Two-factor authentication",
      user,
      status: options.status,
    },
  );
}

/** `POST /profile/two-factor` that worked: the backup codes, this once. */
export function backupCodesPage(
  user: User,
  codes: string[],
  options: { replaced?: boolean } = {},
): Response {
  return page(
    html`
      <section class="card" aria-labelledby="codes-heading">
        <h2 id="codes-heading">${options.replaced
          ? "Save your new backup codes"
          : "Save your backup codes"}</h2>
        <p>If you lose your phone, each of these codes signs you in once instead of a code from the app.
          <strong>This is the only time they are shown:</strong> print them or keep them in a password manager.</p>
        <ol id="backup-codes">${codes.map((code) =>
          html`<li>${code}</li>`
        )}</ol>
        <p><a href="${routes.security
          .href()}">I saved them: go to security</a></p>
      </section>
    `,
    options.replaced
      ? {
        title: "New backup codes",
        user,
        notice:
          "You have 10 new backup codes. The old ones no longer work, used or not.",
      }
      : {
        title: "Two-factor authentication is on",
        user,
        notice:
          "Two-factor authentication is on. You will type a code from your app after your password.",
      },
  );
}

/** What the page of a user with 2FA on shows. */
export interface ManagePage {
  enabledAt: Date;
  backupCodesLeft: number;
  error?: string;
  notice?: string;
  status?: number;
}

/** `GET /profile/two-factor` while 2FA is on: turning it off. */
export function managePage(user: User, options: ManagePage): Response {
  return page(
    html`
      <section class="card" aria-labelledby="state-heading">
        <h2 id="state-heading">Status</h2>
        <p><span class="state-on">On</span> since <time datetime="${options
          .enabledAt.toISOString()}">${options.enabledAt.toISOString().slice(
            0,
            10,
          )}</time>. Backup codes left: <strong>${options
          .backupCodesLeft}</strong>.</p>
      </section>
      <form method="post" action="${routes.twoFactor.disable
        .href()}" class="card code-form">
        <input type="hidden" name="_method" value="DELETE">
        <h2>Turn off two-factor authentication</h2>
        ${codeField(
          "Code from the app, or a backup code",
          options.error,
          "Turning it off signs out every other device.",
        )}
        <button type="submit" class="danger">Turn off</button>
      </form>
      <p><a href="${routes.security.href()}">Back to security</a></p>
    `,
    {
      title: "Two-factor authentication",
      user,
      notice: options.notice,
      status: options.status,
    },
  );
}

/** Too many wrong codes while signed in (turning 2FA off): `429`. */
export function lockedPage(user: User, error: string): Response {
  return page(
    html`<p><a href="${routes.security.href()}">Back to security</a></p>`,
    { title: "Two-factor authentication", user, error, status: 429 },
  );
}

/** What the sign-in's second step shows. */
export interface TwoFactorLoginPage {
  error?: string;
  notice?: string;
  status?: number;
  headers?: HeadersInit;
}

/** `GET /auth/two-factor`: the code after the password. */
export function twoFactorLoginPage(options: TwoFactorLoginPage): Response {
  const minutes = PENDING_SIGN_IN_MS / 60_000;
  return page(
    html`
      <form method="post" action="${routes.twoFactor.verify
        .href()}" class="card code-form">
        <p>Your password was right. One more step:</p>
        ${codeField(
          "Code from your authenticator app",
          options.error,
          "The 6-digit code your app shows now, or one of your backup codes (xxxx‑xxxx) if you lost your phone.",
        )}
        <button type="submit">Verify</button>
        <p class="form-aside">This step ends after ${minutes} minutes; then <a href="${routes
          .auth.login.index.href()}">log in again</a>.</p>
      </form>
      ${PASSKEY_SKIPS}
    `,
    {
      title: "Two-factor authentication",
      notice: options.notice,
      status: options.status,
      headers: options.headers,
    },
  );
}
