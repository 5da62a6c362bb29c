/**
 * The "Sign in with <provider>" buttons of the login page, and the rule
 * for linking accounts, said where people choose. Each button is a link
 * (no JavaScript), not a form: the page's Content-Security-Policy allows
 * forms to post only to the app (`form-action 'self'`), and browsers
 * apply that to the redirect a form's answer makes, so a form could not
 * send the browser on to the provider. Starting a sign-in from another
 * site gains nothing: it can only finish in the browser that started it
 * (`state` lives in that browser's session).
 *
 * @module
 */
import { html, type SafeHtml } from "@fetchkit/toolkit/html-template";
import { routes } from "../routes.ts";

/** A provider button: its id in the URL and its name on the button. */
export interface ProviderButton {
  id: string;
  name: string;
}

/** The buttons, or nothing when no provider is configured. */
export function providerButtons(
  providers: readonly ProviderButton[] | undefined,
  returnTo: string | undefined,
): SafeHtml | null {
  if (!providers?.length) return null;
  const search = returnTo ? { search: { returnTo } } : undefined;
  return html`
    <section class="providers" aria-labelledby="providers-title">
      <h2 id="providers-title">Or sign in with</h2>
      ${providers.map((provider) => {
        const href = routes.oauth.start.href({ provider: provider.id }, search);
        return html`<a class="provider" href="${href}">Sign in with ${provider.name}</a>`;
      })}
      <details class="rule" id="linking-rule">
        <summary>How linking works</summary>
        <p>
          A provider opens an existing account only when it has verified
          that the email address is yours, and you have verified it here
          too (with the link we mailed). A provider that has not verified
          your address cannot open an existing account or make a new one.
        </p>
      </details>
    </section>
  `;
}
