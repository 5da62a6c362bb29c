/**
 * The passkey parts of the login page and the profile.
 *
 * The ceremonies need `navigator.credentials`, so a script
 * (`public/passkeys.js`, loaded with the request's CSP nonce) runs them;
 * the sign-in button stays hidden until it knows the browser can. Renaming
 * and removing are plain forms (`_method=PUT` / `DELETE` for
 * `methodOverride()`), which work without a script.
 *
 * @module
 */
import { html, type SafeHtml } from "@fetchkit/toolkit/html-template";
import { routes } from "../routes.ts";
import { MAX_PASSKEY_NAME, type StoredPasskey } from "../passkeys.ts";

/** The script tag of the ceremonies, or nothing without a nonce. */
export function passkeyScript(nonce: string | undefined): SafeHtml | null {
  return nonce
    ? html`<script type="module" src="/assets/passkeys.js" nonce="${nonce}"></script>`
    : null;
}

/**
 * The login page's "Sign in with a passkey": hidden until the script
 * shows it. With the email field filled in, the passkey must be that
 * account's; empty, any of this site's passkeys signs its own account in.
 */
export function passkeyLogin(
  nonce: string | undefined,
  returnTo?: string,
): SafeHtml {
  const action = routes.passkeys.login.href(
    undefined,
    returnTo ? { search: { returnTo } } : undefined,
  );
  return html`
    <section class="card passkey" id="passkey-login"
      aria-labelledby="passkey-heading" hidden
      data-options="${routes.passkeys.loginOptions
        .href()}" data-action="${action}">
      <h2 id="passkey-heading">Or use a passkey</h2>
      <p>No password, no email needed: your device asks for your fingerprint, face or PIN.</p>
      <button type="button" class="secondary"
        id="passkey-login-button">Sign in with a passkey</button>
      <p class="field-error" id="passkey-login-error" role="alert" hidden></p>
    </section>
    ${passkeyScript(nonce)}
  `;
}

function formatDate(date: Date | undefined): SafeHtml | string {
  if (!date) return "never";
  return html`<time datetime="${date.toISOString()}">${
    date.toISOString().slice(0, 10)
  }</time>`;
}

/** One passkey of the profile's list: its name, dates, and two forms. */
function passkeyItem(passkey: StoredPasskey, index: number): SafeHtml {
  const href = routes.passkeys.rename.href({ id: passkey.id });
  const nameId = `passkey-name-${index}`;
  return html`
    <li class="passkey-item">
      <div class="passkey-head">
        <p class="passkey-name"><strong>${passkey.name}</strong>
          <small>Added ${formatDate(passkey.createdAt)}, last used ${formatDate(
            passkey.lastUsedAt,
          )}${passkey.backedUp ? ", synced" : ""}</small></p>
        <form method="post" action="${href}" class="passkey-remove">
          <input type="hidden" name="_method" value="DELETE">
          <button type="submit" class="danger"
            aria-label="Remove ${passkey.name}">Remove</button>
        </form>
      </div>
      <form method="post" action="${href}" class="passkey-rename">
        <input type="hidden" name="_method" value="PUT">
        <label for="${nameId}">New name for ${passkey.name}</label>
        <input id="${nameId}" name="name" required maxlength="${MAX_PASSKEY_NAME}"
          value="${passkey.name}">
        <button type="submit" class="secondary">Rename</button>
      </form>
    </li>
  `;
}

/** The profile's passkey section: the list and "Add a passkey". */
export function passkeySection(
  passkeys: StoredPasskey[],
  nonce: string | undefined,
): SafeHtml {
  const list = passkeys.length === 0
    ? html`<p>You have no passkey yet. Add one to sign in without your password.</p>`
    : html`<ul class="passkeys">${passkeys.map(passkeyItem)}</ul>`;
  return html`
    <section class="card" aria-labelledby="passkeys-heading">
      <h2 id="passkeys-heading">Passkeys</h2>
      ${list}
      <form id="passkey-add" hidden class="passkey-add"
        data-options="${routes.passkeys.registerOptions.href()}"
        data-action="${routes.passkeys.register.href()}">
        <label for="passkey-new-name">Name of the new passkey <small>(optional)</small></label>
        <input id="passkey-new-name" name="name" maxlength="${MAX_PASSKEY_NAME}" placeholder="Laptop">
        <button type="submit">Add a passkey</button>
        <p class="field-error" id="passkey-add-error" role="alert" hidden></p>
      </form>
      <noscript><p>Adding a passkey needs JavaScript.</p></noscript>
    </section>
    ${passkeyScript(nonce)}
  `;
}
