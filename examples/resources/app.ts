/**
 * A small CRUD app over an in-memory collection: the seed's `resources()`
 * endpoints, with HTML forms that reach PUT and DELETE through
 * `methodOverride()`.
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

/** Options of {@linkcode createApp}. */
export interface AppOptions {
  /** Where log lines go; default `console.log`, `null` for none. */
  log?: ((line: string) => void) | null;
}

function page(title: string, content: SafeHtml): Response {
  return createHtmlResponse(html`
    <!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8">
        <title>${title}</title>
      </head>
      <body>
        <nav><a href="${routes.home.href()}">Home</a> · <a href="${routes.posts
          .new.href()}">New post</a></nav>
        <h1>${title}</h1>
        ${content}
      </body>
    </html>
  `);
}

function postForm(action: string, post?: Post): SafeHtml {
  return html`<form method="post" action="${action}">
  ${post ? html`<input type="hidden" name="_method" value="PUT">` : null}
  <label>Title <input name="title" required value="${post?.title}"></label>
  <label>Body <textarea name="body">${post?.body}</textarea></label>
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

  const fields = (form: FormData | undefined) => ({
    title: String(form?.get("title") ?? ""),
    body: String(form?.get("body") ?? ""),
  });

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
          create: (context) => {
            const post = { id: nextId++, ...fields(context.get(FormData)) };
            posts.set(post.id, post);
            // Browsers get the list page; API clients get the record.
            if (context.headers.get("accept")?.includes("text/html")) {
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
          update: (context) => {
            const post = posts.get(Number(context.params.id));
            if (!post) return notFound();
            Object.assign(post, fields(context.get(FormData)));
            if (context.headers.get("accept")?.includes("text/html")) {
              return redirect(routes.home.href(), 303);
            }
            return Response.json(post);
          },
          destroy: (context) => {
            if (!posts.delete(Number(context.params.id))) return notFound();
            if (context.headers.get("accept")?.includes("text/html")) {
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
