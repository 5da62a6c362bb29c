/**
 * The security page (`/profile/security`): two-factor state, backup
 * codes left and "Make new backup codes" (a form; re-authentication
 * first), passkeys, and the sections other parts add (the devices signed
 * in).
 *
 * @module
 */
import { html, type SafeHtml } from "@fetchkit/toolkit/html-template";
import { routes } from "../routes.ts";
import type { User } from "../users.ts";
import { page } from "./layout.ts";

/** What the security page shows. */
export interface SecurityPage {
  /** 2FA's state: `null` when off. */
  twoFactor: { enabledAt: Date; backupCodesLeft: number } | null;
  passkeyCount: number;
  /** Further sections (the devices signed in), in order. */
  sections?: (SafeHtml | null)[];
  error?: string;
  notice?: string;
}

function twoFactorSection(state: SecurityPage["twoFactor"]): SafeHtml {
  const body = state === null
    ? html`
      <p><span class="state-off">Off.</span> Add a code from an authenticator app to your password, so a stolen password alone cannot sign in.</p>
      <p><a href="${routes.twoFactor.show
        .href()}">Set up two-factor authentication</a></p>
    `
    : html`
      <p><span class="state-on">On</span> since <time datetime="${state
        .enabledAt
        .toISOString()}">${state.enabledAt.toISOString().slice(
          0,
          10,
        )}</time>. Backup codes left: <strong id="backup-codes-left">${state
        .backupCodesLeft}</strong>.</p>
      ${state.backupCodesLeft <= 3
        ? html`<p>Few backup codes are left: make new ones below.</p>`
        : null}
      <p><a href="${routes.twoFactor.show
        .href()}">Manage two-factor authentication</a></p>
      <form method="post" action="${routes.twoFactor.backupCodes
        .href()}">
        <p>Lost your backup codes, or used most of them? New ones replace them all; the old ones stop working.</p>
        <button type="submit" class="secondary">Make new backup codes</button>
      </form>
    `;
  return html`
    <section class="card" aria-labelledby="two-factor-heading">
      <h2 id="two-factor-heading">Two-factor authentication</h2>
      ${body}
    </section>
  `;
}

/** The security page. */
export function securityPage(user: User, options: SecurityPage): Response {
  return page(
    html`
      ${twoFactorSection(options.twoFactor)}
      <section class="card" aria-labelledby="passkeys-summary-heading">
        <h2 id="passkeys-summary-heading">Passkeys</h2>
        <p>${options.passkeyCount === 0
          ? "No passkey yet."
          : options.passkeyCount === 1
          ? "1 passkey."
          : `${options.passkeyCount} passkeys.`} A passkey sign-in needs no second step: it is already two factors.</p>
        <p><a href="${routes.profile
          .href()}">Manage passkeys on your profile</a></p>
      </section>
      ${options.sections}
    `,
    {
      title: "Security",
      user,
      path: routes.security.href(),
      error: options.error,
      notice: options.notice,
    },
  );
}
