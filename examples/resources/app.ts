/**
 * A small CRUD app over an in-memory collection: the seed's `resources()`
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

function page(title: string, content: SafeHtml, status = 200): Response {
  return createHtmlResponse(
    html`
      <!doctype html>
      <html lang="en">
        <head>
          <meta charset="utf-8">
          <title>${title}</title>
          <style>
            label { display: block; margin: 0.5rem 0 0; }
            .error { color: #b00020; margin: 0.25rem 0 0; }
            [aria-invalid="true"] { border: 2px solid #b00020; }
          </style>
        </head>
        <body>
          <nav><a href="${routes.home.href()}">Home</a> · <a href="${routes
            .posts
            .new.href()}">New post</a></nav>
          <h1>${title}</h1>
          ${content}
        </body>
      </html>
    `,
    { status },
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
  <label>Title <input name="title" required value="${title}"${
    invalid(state, "title")
  }></label>
  ${errorsOf(state, "title")}
  <label>Body <textarea name="body"${
    invalid(state, "body")
  }>${body}</textarea></label>
  ${errorsOf(state, "body")}
  <button>${post ? "Save" : "Create"}</button>
</form>`;
}

function notFound(): Response {
  return new Response("Not Found", {
    status: 404,
    headers: { "Content-Type": "text/plain; charset=utf-8" },
  });
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
  const router = createRouter({ middleware });

  const wantsHtml = (context: { headers: Headers }) =>
    context.headers.get("accept")?.includes("text/html") ?? false;
  // 422: browsers get the form again, API clients the errors.
  const unprocessable = (
    context: { headers: Headers },
    title: string,
    form: SafeHtml,
    state: FormState,
  ) =>
    wantsHtml(context) ? page(title, form, 422) : Response.json({
      fieldErrors: state.fieldErrors,
      formErrors: state.formErrors,
    }, { status: 422 });

  router.map(routes, {
    actions: {
      home: () => {
        const list = [...posts.values()].map((post) =>
          html`<li><a href="${
            routes.posts.edit.href({ id: post.id })
          }">${post.title}</a>
  <form method="post" action="${
            routes.posts.destroy.href({ id: post.id })
          }" style="display:inline">
    <input type="hidden" name="_method" value="DELETE"><button>Delete</button>
  </form></li>`
        );
        return page(
          "Posts",
          html`<ul>${list.length ? list : html`<li>No posts yet.</li>`}</ul>`,
        );
      },
      posts: {
        actions: {
          index: () => Response.json([...posts.values()]),
          new: () => page("New post", postForm(routes.posts.create.href())),
          show: ({ params }) => {
            const post = posts.get(Number(params.id));
            return post ? Response.json(post) : notFound();
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
              return redirect(routes.home.href(), 303);
            }
            return Response.json(post, { status: 201 });
          },
          edit: ({ params }) => {
            const post = posts.get(Number(params.id));
            if (!post) return notFound();
            return page(
              `Edit ${post.title}`,
              postForm(routes.posts.update.href({ id: post.id }), post),
            );
          },
          update: async (context) => {
            const post = posts.get(Number(context.params.id));
            if (!post) return notFound();
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
              return redirect(routes.home.href(), 303);
            }
            return Response.json(post);
          },
          destroy: (context) => {
            if (!posts.delete(Number(context.params.id))) return notFound();
            if (wantsHtml(context)) {
              return redirect(routes.home.href(), 303);
            }
            return new Response(null, { status: 204 });
          },
        },
      },
    },
  });
  return router;
}
