/**
 * The admin's page of background jobs that used all their attempts (the
 * dead-letter list), with a "Retry" form for each. For a mail it shows
 * the recipient and subject, never the text (it may hold a live link).
 *
 * @module
 */
import { html } from "@fetchkit/toolkit/html-template";
import type { DeadLetter, JobCounts } from "@fetchkit/toolkit/jobs";
import { routes } from "../routes.ts";
import type { User } from "../users.ts";
import { page } from "./layout.ts";

function what(job: DeadLetter) {
  const payload = job.payload as { to?: unknown; subject?: unknown } | null;
  if (job.name === "mail" && payload !== null && typeof payload === "object") {
    return html`to ${String(payload.to)}: “${String(payload.subject)}”`;
  }
  return "";
}

/** The dead jobs, newest first, and the counts per state. */
export function deadJobsPage(
  dead: DeadLetter[],
  counts: JobCounts,
  me: User,
  flash: { error?: string; notice?: string },
): Response {
  const rows = dead.map((job) =>
    html`
      <tr>
        <td class="job-name">${job.name}</td>
        <td class="job-what">${what(job)}</td>
        <td class="job-error">${job.error}</td>
        <td class="job-attempts">${job.attempts}</td>
        <td><time datetime="${job.failedAt.toISOString()}">${job.failedAt
          .toISOString().replace("T", " ").slice(0, 19)} UTC</time></td>
        <td>
          <form method="post" action="${routes.admin.retryJob.href({
            id: job.id,
          })}" class="inline">
            <button type="submit" aria-label="Retry job ${job
              .id}">Retry</button>
          </form>
        </td>
      </tr>
    `
  );
  return page(
    html`
      <p
        class="job-counts">Waiting ${counts.waiting}, delayed ${counts
          .delayed}, running ${counts.active}, dead ${counts.dead}.</p>
      ${dead.length === 0
        ? html`<p>No job has used all its attempts.</p>`
        : html`
          <table class="jobs">
            <caption>Jobs that used all their attempts</caption>
            <thead>
              <tr>
                <th scope="col">Job</th>
                <th scope="col">What</th>
                <th scope="col">Last error</th>
                <th scope="col">Attempts</th>
                <th scope="col">Failed at</th>
                <th scope="col"><span class="visually-hidden">Retry</span></th>
              </tr>
            </thead>
            <tbody>${rows}</tbody>
          </table>
        `}
    `,
    {
      title: "Background jobs",
      user: me,
      ...flash,
      path: routes.admin.jobs.href(),
    },
  );
}
