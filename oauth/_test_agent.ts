// Test helper: a browser-like client over fetch. It keeps cookies per
// origin (names only: paths are ignored, which these flows allow), does
// not follow redirects by itself, and sends requests for one origin to
// an in-process handler when given one (the app under test).

type Handler = (request: Request) => Promise<Response>;

/** A cookie jar and a way to reach each origin. */
export class Agent {
  readonly jars = new Map<string, Map<string, string>>();
  readonly handlers = new Map<string, Handler>();

  /** Requests for `origin` go to `handler` instead of the network. */
  route(origin: string, handler: Handler): this {
    this.handlers.set(new URL(origin).origin, handler);
    return this;
  }

  async request(url: string | URL, init: RequestInit = {}): Promise<Response> {
    const target = new URL(url);
    const jar = this.jars.get(target.origin) ?? new Map<string, string>();
    this.jars.set(target.origin, jar);
    const headers = new Headers(init.headers);
    if (jar.size > 0) {
      headers.set("Cookie", [...jar].map(([k, v]) => `${k}=${v}`).join("; "));
    }
    const request = new Request(target, {
      ...init,
      headers,
      redirect: "manual",
    });
    const handler = this.handlers.get(target.origin);
    const response = handler ? await handler(request) : await fetch(request);
    for (const line of response.headers.getSetCookie()) {
      const [pair, ...attributes] = line.split(";");
      const at = pair.indexOf("=");
      const name = pair.slice(0, at).trim();
      const value = pair.slice(at + 1).trim();
      const gone = attributes.some((a) => /^\s*max-age=0\s*$/i.test(a)) ||
        attributes.some((a) => {
          const m = /^\s*expires=(.*)$/i.exec(a);
          return m !== null && Date.parse(m[1]) <= Date.now();
        });
      if (gone) jar.delete(name);
      else jar.set(name, value);
    }
    return response;
  }

  /** GET `url`, then follow redirects while they stay off `stopAt`'s origin. */
  async follow(
    url: string | URL,
    stopAt?: string,
    init: RequestInit = {},
  ): Promise<{ response: Response; url: URL }> {
    let current = new URL(url);
    let response = await this.request(current, init);
    for (let hops = 0; hops < 20; hops++) {
      const location = response.headers.get("Location");
      if (response.status < 300 || response.status >= 400 || !location) break;
      await response.body?.cancel();
      current = new URL(location, current);
      if (stopAt !== undefined && current.origin === new URL(stopAt).origin) {
        return { response, url: current };
      }
      response = await this.request(current);
    }
    return { response, url: current };
  }
}

/** The form of a provider page: its action and hidden fields. */
function formOf(page: string, base: URL): { action: URL } {
  const action = /<form[^>]*action="([^"]+)"/.exec(page)?.[1];
  if (action === undefined) throw new Error(`no form on ${base}: ${page}`);
  return { action: new URL(action.replaceAll("&amp;", "&"), base) };
}

/**
 * Walks the provider's login and consent pages as `login` from
 * `authorizeUrl` (the app's redirect) and returns the callback URL the
 * provider sends the browser to (on `appOrigin`), not yet visited.
 */
export async function signInAtProvider(
  agent: Agent,
  authorizeUrl: string,
  appOrigin: string,
  login: string,
  password = "any-password",
): Promise<URL> {
  let step = await agent.follow(authorizeUrl, appOrigin);
  for (let pages = 0; pages < 4; pages++) {
    if (step.url.origin === new URL(appOrigin).origin) return step.url;
    const page = await step.response.text();
    const { action } = formOf(page, step.url);
    const fields: Record<string, string> = page.includes('name="login"')
      ? { prompt: "login", login, password }
      : { prompt: "consent" };
    const posted = await agent.request(action, {
      method: "POST",
      body: new URLSearchParams(fields),
    });
    step = await agent.follow(
      new URL(posted.headers.get("Location")!, action),
      appOrigin,
    );
  }
  throw new Error(`the provider did not send the browser back: ${step.url}`);
}

/** Cancels at the provider's login page; the callback URL (with `error`). */
export async function abortAtProvider(
  agent: Agent,
  authorizeUrl: string,
  appOrigin: string,
): Promise<URL> {
  const step = await agent.follow(authorizeUrl, appOrigin);
  await step.response.body?.cancel();
  const abort = new URL(step.url.pathname + "/abort", step.url);
  const back = await agent.follow(abort, appOrigin);
  return back.url;
}
