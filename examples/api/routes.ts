/**
 * The notes API's routes: one plain route map, used by the app, its tests
 * and links (`routes.notes.show.href({ id: 1 })`).
 *
 * | route | method | pattern |
 * |---|---|---|
 * | `notes.index` | GET | `/notes?limit=20&after=0` |
 * | `notes.create` | POST | `/notes` |
 * | `notes.show` | GET | `/notes/:id` |
 * | `notes.update` | PUT | `/notes/:id` |
 * | `notes.destroy` | DELETE | `/notes/:id` |
 *
 * @module
 */
import { route } from "@fetchkit/toolkit/fetch-router/routes";

/** The notes API's routes. */
export const routes = route({
  notes: {
    index: { method: "GET", pattern: "/notes" },
    create: { method: "POST", pattern: "/notes" },
    show: { method: "GET", pattern: "/notes/:id" },
    update: { method: "PUT", pattern: "/notes/:id" },
    destroy: { method: "DELETE", pattern: "/notes/:id" },
  },
});
