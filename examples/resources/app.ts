/**
 * A small CRUD app over an in-memory collection: the seven `resources()`
 * endpoints, with HTML forms that reach PUT and DELETE through
 * `methodOverride()`. `create` and `update` validate the form with one zod
 * schema through `parseForm()`; a form that fails answers 422: browsers get
 * the form again with the submitted values and each error beside its field,
 * API clients get the errors as JSON.
 *
 * @module
 */
import { createRouter, type Router } from "@fetchkit/toolkit/fetch-router";
import { resources, route } from "@fetchkit/toolkit/fetch-router/routes";
import { formData } from "@fetchkit/toolkit/form-data-middleware";
import { methodOverride } from "@fetchkit/toolkit/method-override-middleware";
import { logger } from "@fetchkit/toolkit/logger-middleware";
import { html, type SafeHtml } from "@fetchkit/toolkit/html-template";
import { createHtmlResponse } from "@fetchkit/toolkit/response/html";
import { redirect } from "@fetchkit/toolkit/response/redirect";
import { parseForm } from "@fetchkit/toolkit/form-validation";
import * as z from "zod";

/** The app's routes, exported so tests and links use `href()`. */
export const routes = route({
  home: { method: "GET", pattern: "/" },
  posts: resources("posts"),
});

/** One post. */
export interface Post {
  id: number;
  title: string;
  body: string;
}

/** What a post's form must hold: a title of 1 to 200 characters, a body. */
export const PostForm = z.object({
  title: z.string().trim().min(1, "Title is required").max(
    200,
    "Title must be at most 200 characters",
  ),
  body: z.string().max(10_000, "Body must be at most 10,000 characters")
    .default(""),
});

/** A form that failed validation, to render again. */
interface FormState {
  values: Record<string, unknown>;
  fieldErrors: Record<string, string[]>;
  formErrors: string[];
}

/** Options of {@linkcode createApp}. */
export interface AppOptions {
  /** Where log lines go; default `console.log`, `null` for none. */
  log?: ((line: string) => void) | null;
}

const STYLE = `
  *, *::before, *::after { box-sizing: border-box; }
  body { font: 16px/1.5 system-ui, sans-serif; margin: 0; color: #1d2330;
    background: #f5f6f8; }
  header { background: #fff; border-bottom: 1px solid #d8dce3;
    padding: .75rem 0; }
  /* The links line up with the page's content below. */
  nav { display: flex; gap: 1.25rem; flex-wrap: wrap; max-width: 42rem;
    margin: 0 auto; padding: 0 1.5rem; }
  nav a[aria-current="page"] { color: inherit; font-weight: 600;
    text-decoration: none; }
  main { max-width: 42rem; margin: 1.5rem auto; padding: 0 1.5rem;
    overflow-wrap: anywhere; }
  h1 { font-size: 1.6rem; margin: 0 0 1rem; }
  a { color: #1f4fb8; }
  main > form { display: grid; gap: .25rem; background: #fff; padding: 1rem 1.25rem;
    border: 1px solid #d8dce3; border-radius: 8px; }
  label { display: block; margin: .5rem 0 0; font-weight: 600; }
  input, textarea { display: block; width: 100%; font: inherit;
    font-weight: 400; margin-top: .25rem;
    padding: .45rem .6rem; border: 1px solid #aab2c0; border-radius: 6px; }
  textarea { min-height: 8rem; }
  button { font: inherit; padding: .45rem 1rem; border: 0; border-radius: 6px;
    background: #1f4fb8; color: #fff; cursor: pointer; }
  main > form button { justify-self: start; margin-top: .75rem; }
  ul.posts { list-style: none; padding: 0; margin: 0; display: grid; gap: .5rem; }
  ul.posts li { display: flex; align-items: center; gap: 1rem; background: #fff;
    padding: .6rem .9rem; border: 1px solid #d8dce3; border-radius: 8px; }
  ul.posts li > a:first-child { flex: 1; min-width: 0; }
  ul.posts form { margin: 0; }
  ul.posts li { flex-wrap: wrap; }
  details.delete summary { cursor: pointer; color: #a4161a; }
  details.delete[open] { flex-basis: 100%; }
  details.delete form { margin: .5rem 0 0; display: flex; gap: .75rem;
    align-items: center; flex-wrap: wrap; }
  button.danger { background: #a4161a; color: #fff; }
  .notice { background: #e7f5ec; border: 1px solid #2f7a4b; color: #1c4d2e;
    padding: .5rem .9rem; border-radius: 8px; margin: 0 0 1rem; }
  article { background: #fff; padding: 1rem 1.25rem; border: 1px solid #d8dce3;
    border-radius: 8px; white-space: pre-wrap; }
  .actions { display: flex; gap: 1rem; align-items: center; margin-top: 1rem;
    flex-wrap: wrap; }
  .error { color: #a4161a; margin: .25rem 0 0; }
  [aria-invalid="true"] { border: 2px solid #a4161a; }
  .visually-hidden { position: absolute; width: 1px; height: 1px;
    overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
  @media (max-width: 30rem) {
    nav, main { padding: 0 1rem; }
  }
`;

function page(
  title: string,
  content: SafeHtml,
  options: { status?: number; path?: string } = {},
): Response {
  // Screen readers announce the link of the page you are on as "current".
  const link = (href: string, label: string) =>
    html`
      <a href="${href}" ${html.attrs({
        "aria-current": href === options.path ? "page" : null,
      })}>${label}</a>
    `;
  return createHtmlResponse(
    html`
      <!doctype html>
      <html lang="en">
        <head>
          <meta charset="utf-8">
          <meta name="viewport" content="width=device-width, initial-scale=1">
          <title>${title} · fetchkit resources example</title>
          <link rel="icon" href="data:,">
          <style>${html.raw(STYLE)}</style>
        </head>
        <body>
          <header>
            <nav aria-label="Main">${link(routes.home.href(), "Posts")} ${link(
              routes.posts.new.href(),
              "New post",
            )}</nav>
          </header>
          <main>
            <h1>${title}</h1>
            ${content}
          </main>
        </body>
      </html>
    `,
    { status: options.status },
  );
}

/** A submitted value to refill a field: text only, never a file. */
function text(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

/** The messages for one field, beside it, linked by `aria-describedby`. */
function errorsOf(state: FormState | undefined, name: string): SafeHtml | null {
  const messages = state?.fieldErrors[name];
  if (!messages?.length) return null;
  return html`<p class="error" id="${name}-error">${messages.join(" ")}</p>`;
}

function invalid(state: FormState | undefined, name: string): SafeHtml | null {
  return state?.fieldErrors[name]?.length
    ? html.attrs({
      "aria-invalid": "true",
      "aria-describedby": `${name}-error`,
    })
    : null;
}

function postForm(action: string, post?: Post, state?: FormState): SafeHtml {
  const title = state ? text(state.values.title) : post?.title;
  const body = state ? text(state.values.body) : post?.body;
  return html`<form method="post" action="${action}">
  ${post ? html`<input type="hidden" name="_method" value="PUT">` : null}
  ${
    state?.formErrors.length
      ? html`<p class="error" role="alert">${state.formErrors.join(" ")}</p>`
      : null
  }
  <label>Title <input id="title" name="title" required value="${title}"${
    invalid(state, "title")
  }></label>
  ${errorsOf(state, "title")}
  <label>Body <textarea id="body" name="body"${
    invalid(state, "body")
  }>${body}</textarea></label>
  ${errorsOf(state, "body")}
  <button>${post ? "Save" : "Create"}</button>
</form>`;
}

/**
 * Deleting asks first, without JavaScript: "Delete" opens a confirmation
 * with the post's title, and only its button sends the DELETE.
 */
function deleteControl(post: Post): SafeHtml {
  return html`
    <details class="delete">
      <summary>Delete<span class="visually-hidden"> ${post
        .title}</span></summary>
      <form method="post" action="${routes.posts.destroy.href({
        id: post.id,
      })}">
        <input type="hidden" name="_method" value="DELETE">
        <span>Delete “${post.title}” for good?</span>
        <button class="danger">Yes, delete it</button>
      </form>
    </details>
  `;
}

/** What the last action did, carried in the redirect's query. */
const NOTICES: Record<string, (title: string) => string> = {
  created: (title) => `Created “${title}”.`,
  saved: (title) => `Saved “${title}”.`,
  deleted: (title) => `Deleted “${title}”.`,
};

/** The list page's URL after an action, saying what happened to `title`. */
function listAfter(action: keyof typeof NOTICES, title: string): string {
  return `${routes.home.href()}?${new URLSearchParams({ [action]: title })}`;
}

function notice(url: URL): SafeHtml | null {
  for (const [action, message] of Object.entries(NOTICES)) {
    const title = url.searchParams.get(action);
    if (title !== null) {
      return html`<p class="notice" role="status">${
        message(title.slice(0, 200))
      }</p>`;
    }
  }
  return null;
}

/** 404: a page for browsers, plain text for API clients. */
function notFound(context: { headers: Headers }): Response {
  if (wantsHtml(context)) {
    return page(
      "Page not found",
      html`<p>There is nothing at this address. See the <a href="${routes.home.href()}">posts</a>.</p>`,
      { status: 404 },
    );
  }
  return new Response("Not Found", {
    status: 404,
    headers: { "Content-Type": "text/plain; charset=utf-8" },
  });
}

function wantsHtml(context: { headers: Headers }): boolean {
  return context.headers.get("accept")?.includes("text/html") ?? false;
}

/**
 * Creates the app's router over a fresh collection.
 *
 * @example
 * ```ts
 * import { createApp } from "./app.ts";
 *
 * const app = createApp({ log: null });
 * const response = await app.fetch(new Request("http://localhost/posts"));
 * ```
 */
export function createApp(options: AppOptions = {}): Router {
  const posts = new Map<number, Post>();
  let nextId = 1;
  // formData() first: methodOverride() then reads the parsed form, no body copy.
  const middleware = [formData(), methodOverride()];
  if (options.log !== null) {
    middleware.unshift(logger({ log: options.log ?? console.log }));
  }
  const router = createRouter({ middleware, defaultHandler: notFound });

  // 422: browsers get the form again, API clients the errors.
  const unprocessable = (
    context: { headers: Headers },
    title: string,
    form: SafeHtml,
    state: FormState,
  ) =>
    wantsHtml(context) ? page(title, form, { status: 422 }) : Response.json({
      fieldErrors: state.fieldErrors,
      formErrors: state.formErrors,
    }, { status: 422 });

  // The list, for `/` and for browsers asking for `/posts`.
  const listPage = (context: { url: URL }) => {
    const list = [...posts.values()].map((post) =>
      html`<li><a href="${
        routes.posts.show.href({ id: post.id })
      }">${post.title}</a>
  <a href="${
        routes.posts.edit.href({ id: post.id })
      }">Edit<span class="visually-hidden"> ${post.title}</span></a>
  ${deleteControl(post)}</li>`
    );
    return page(
      "Posts",
      html`${notice(context.url)}${
        list.length
          ? html`<ul class="posts">${list}</ul>`
          : html`<p>No posts yet. <a href="${routes.posts.new.href()}">Write the first</a>.</p>`
      }`,
      { path: routes.home.href() },
    );
  };

  router.map(routes, {
    actions: {
      home: (context) => listPage(context),
      posts: {
        actions: {
          // Browsers get pages, API clients JSON (the same URLs).
          index: (context) =>
            wantsHtml(context)
              ? listPage(context)
              : Response.json([...posts.values()]),
          new: () =>
            page("New post", postForm(routes.posts.create.href()), {
              path: routes.posts.new.href(),
            }),
          show: (context) => {
            const post = posts.get(Number(context.params.id));
            if (!post) return notFound(context);
            if (!wantsHtml(context)) return Response.json(post);
            return page(
              post.title,
              html`${notice(context.url)}<article>${
                post.body || html`<em>No body.</em>`
              }</article>
<div class="actions"><a href="${
                routes.posts.edit.href({ id: post.id })
              }">Edit</a> ${deleteControl(post)}</div>`,
            );
          },
          create: async (context) => {
            const result = await parseForm(
              context.get(FormData),
              PostForm,
            );
            if (!result.success) {
              return unprocessable(
                context,
                "New post",
                postForm(routes.posts.create.href(), undefined, result),
                result,
              );
            }
            const post = { id: nextId++, ...result.value };
            posts.set(post.id, post);
            // Browsers get the list page; API clients get the record.
            if (wantsHtml(context)) {
              return redirect(listAfter("created", post.title), 303);
            }
            return Response.json(post, { status: 201 });
          },
          edit: (context) => {
            const post = posts.get(Number(context.params.id));
            if (!post) return notFound(context);
            return page(
              `Edit ${post.title}`,
              postForm(routes.posts.update.href({ id: post.id }), post),
            );
          },
          update: async (context) => {
            const post = posts.get(Number(context.params.id));
            if (!post) return notFound(context);
            const result = await parseForm(
              context.get(FormData),
              PostForm,
            );
            if (!result.success) {
              return unprocessable(
                context,
                `Edit ${post.title}`,
                postForm(
                  routes.posts.update.href({ id: post.id }),
                  post,
                  result,
                ),
                result,
              );
            }
            Object.assign(post, result.value);
            if (wantsHtml(context)) {
              return redirect(listAfter("saved", post.title), 303);
            }
            return Response.json(post);
          },
          destroy: (context) => {
            const post = posts.get(Number(context.params.id));
            if (!post) return notFound(context);
            posts.delete(post.id);
            if (wantsHtml(context)) {
              return redirect(listAfter("deleted", post.title), 303);
            }
            return new Response(null, { status: 204 });
          },
        },
      },
    },
  });
  return router;
}
