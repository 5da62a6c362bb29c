/**
 * "Confirm with <provider>": the page between the confirm page's button
 * and the provider. The button is a form posting to the app, and the
 * pages' Content-Security-Policy lets forms go to the app only
 * (`form-action 'self'`), which browsers apply to the redirect a form's
 * answer makes; so the answer is this page, which goes on to the
 * provider by itself (a `Refresh` header, a navigation of its own, no
 * JavaScript) and has a link for a browser that does not.
 *
 * @module
 */
import { html } from "@fetchkit/toolkit/html-template";
import type { User } from "../users.ts";
import { page } from "./layout.ts";

/** The page that sends the browser on to `url`, the provider's sign-in. */
export function continueToProviderPage(
  user: User,
  providerName: string,
  url: string,
): Response {
  return page(
    html`
      <section class="card" aria-labelledby="continue-heading">
        <h2 id="continue-heading">Sign in at ${providerName}</h2>
        <p>${providerName} asks you to sign in again, then sends you back here.</p>
        <p><a id="continue" href="${url}">Continue to ${providerName}</a></p>
      </section>
    `,
    {
      title: "Confirm it is you",
      user,
      headers: { Refresh: `0; url=${url}`, "Cache-Control": "no-store" },
    },
  );
}
