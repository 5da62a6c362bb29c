/**
 * A large, realistic route table for the router benchmarks: GitHub REST
 * API paths in `:param` syntax.
 *
 * It starts from the classic "GitHub API" set of router benchmarks
 * (julienschmidt/go-http-routing-benchmark, reused by find-my-way and
 * others), with the routes those benchmarks comment out (PATCH routes,
 * comment and event sub-resources) put back, and adds newer API areas
 * (Actions, Checks, Apps, Deployments, Pages, ...), for 339 routes with
 * the deep, param-heavy shape of today's API. Paths whose GitHub
 * parameter spans slashes (`git/refs/*ref`, `contents/*path`) are left
 * out, so that every router here accepts the same plain `:param` table.
 *
 * @module
 */

/** One route: an HTTP method and a pattern. */
export interface BenchRoute {
  readonly method: string;
  readonly path: string;
}

function table(source: string): BenchRoute[] {
  return source.trim().split("\n").map((line) => {
    const [method, path] = line.trim().split(/\s+/);
    return { method, path };
  });
}

/**
 * GitHub routes in which no static segment sits beside a parameter at the
 * same place (both `/gists/starred` and `/gists/:id`). Hono's
 * `RegExpRouter` rejects such pairs with `UnsupportedPathError` (a Hono
 * app then falls back to its `TrieRouter`), so the three-way comparison
 * uses this part, which every router accepts.
 */
export const githubRoutesWithoutSiblings: readonly BenchRoute[] = table(`
  GET    /authorizations
  GET    /authorizations/:id
  POST   /authorizations
  PUT    /authorizations/clients/:client_id
  PATCH  /authorizations/:id
  DELETE /authorizations/:id
  GET    /applications/:client_id/tokens/:access_token
  DELETE /applications/:client_id/tokens
  DELETE /applications/:client_id/tokens/:access_token
  GET    /events
  GET    /repos/:owner/:repo/events
  GET    /networks/:owner/:repo/events
  GET    /orgs/:org/events
  GET    /users/:user/received_events
  GET    /users/:user/received_events/public
  GET    /users/:user/events
  GET    /users/:user/events/public
  GET    /users/:user/events/orgs/:org
  GET    /feeds
  GET    /notifications
  GET    /repos/:owner/:repo/notifications
  PUT    /notifications
  PUT    /repos/:owner/:repo/notifications
  GET    /notifications/threads/:id
  PATCH  /notifications/threads/:id
  GET    /notifications/threads/:id/subscription
  PUT    /notifications/threads/:id/subscription
  DELETE /notifications/threads/:id/subscription
  GET    /repos/:owner/:repo/stargazers
  GET    /users/:user/starred
  GET    /user/starred
  GET    /user/starred/:owner/:repo
  PUT    /user/starred/:owner/:repo
  DELETE /user/starred/:owner/:repo
  GET    /repos/:owner/:repo/subscribers
  GET    /users/:user/subscriptions
  GET    /user/subscriptions
  GET    /repos/:owner/:repo/subscription
  PUT    /repos/:owner/:repo/subscription
  DELETE /repos/:owner/:repo/subscription
  GET    /user/subscriptions/:owner/:repo
  PUT    /user/subscriptions/:owner/:repo
  DELETE /user/subscriptions/:owner/:repo
  GET    /users/:user/gists
  GET    /gists
  GET    /gists/:id
  POST   /gists
  PATCH  /gists/:id
  PUT    /gists/:id/star
  DELETE /gists/:id/star
  GET    /gists/:id/star
  POST   /gists/:id/forks
  DELETE /gists/:id
  GET    /repos/:owner/:repo/git/blobs/:sha
  POST   /repos/:owner/:repo/git/blobs
  GET    /repos/:owner/:repo/git/commits/:sha
  POST   /repos/:owner/:repo/git/commits
  GET    /repos/:owner/:repo/git/refs
  POST   /repos/:owner/:repo/git/refs
  GET    /repos/:owner/:repo/git/tags/:sha
  POST   /repos/:owner/:repo/git/tags
  GET    /repos/:owner/:repo/git/trees/:sha
  POST   /repos/:owner/:repo/git/trees
  GET    /issues
  GET    /user/issues
  GET    /orgs/:org/issues
  GET    /repos/:owner/:repo/issues
  GET    /repos/:owner/:repo/issues/:number
  POST   /repos/:owner/:repo/issues
  PATCH  /repos/:owner/:repo/issues/:number
  GET    /repos/:owner/:repo/assignees
  GET    /repos/:owner/:repo/assignees/:assignee
  GET    /repos/:owner/:repo/issues/:number/comments
  POST   /repos/:owner/:repo/issues/:number/comments
  GET    /repos/:owner/:repo/issues/:number/events
  GET    /repos/:owner/:repo/labels
  GET    /repos/:owner/:repo/labels/:name
  POST   /repos/:owner/:repo/labels
  PATCH  /repos/:owner/:repo/labels/:name
  DELETE /repos/:owner/:repo/labels/:name
  GET    /repos/:owner/:repo/issues/:number/labels
  POST   /repos/:owner/:repo/issues/:number/labels
  DELETE /repos/:owner/:repo/issues/:number/labels/:name
  PUT    /repos/:owner/:repo/issues/:number/labels
  DELETE /repos/:owner/:repo/issues/:number/labels
  GET    /repos/:owner/:repo/milestones/:number/labels
  GET    /repos/:owner/:repo/milestones
  GET    /repos/:owner/:repo/milestones/:number
  POST   /repos/:owner/:repo/milestones
  PATCH  /repos/:owner/:repo/milestones/:number
  DELETE /repos/:owner/:repo/milestones/:number
  GET    /emojis
  GET    /gitignore/templates
  GET    /gitignore/templates/:name
  POST   /markdown
  POST   /markdown/raw
  GET    /meta
  GET    /rate_limit
  GET    /users/:user/orgs
  GET    /user/orgs
  GET    /orgs/:org
  PATCH  /orgs/:org
  GET    /orgs/:org/members
  GET    /orgs/:org/members/:user
  DELETE /orgs/:org/members/:user
  GET    /orgs/:org/public_members
  GET    /orgs/:org/public_members/:user
  PUT    /orgs/:org/public_members/:user
  DELETE /orgs/:org/public_members/:user
  GET    /orgs/:org/teams
  GET    /teams/:id
  POST   /orgs/:org/teams
  PATCH  /teams/:id
  DELETE /teams/:id
  GET    /teams/:id/members
  GET    /teams/:id/members/:user
  PUT    /teams/:id/members/:user
  DELETE /teams/:id/members/:user
  GET    /teams/:id/repos
  GET    /teams/:id/repos/:owner/:repo
  PUT    /teams/:id/repos/:owner/:repo
  DELETE /teams/:id/repos/:owner/:repo
  GET    /user/teams
  GET    /repos/:owner/:repo/pulls
  GET    /repos/:owner/:repo/pulls/:number
  POST   /repos/:owner/:repo/pulls
  PATCH  /repos/:owner/:repo/pulls/:number
  GET    /repos/:owner/:repo/pulls/:number/commits
  GET    /repos/:owner/:repo/pulls/:number/files
  GET    /repos/:owner/:repo/pulls/:number/merge
  PUT    /repos/:owner/:repo/pulls/:number/merge
  GET    /repos/:owner/:repo/pulls/:number/comments
  PUT    /repos/:owner/:repo/pulls/:number/comments
  GET    /user/repos
  GET    /users/:user/repos
  GET    /orgs/:org/repos
  GET    /repositories
  POST   /user/repos
  POST   /orgs/:org/repos
  GET    /repos/:owner/:repo
  PATCH  /repos/:owner/:repo
  GET    /repos/:owner/:repo/contributors
  GET    /repos/:owner/:repo/languages
  GET    /repos/:owner/:repo/teams
  GET    /repos/:owner/:repo/tags
  GET    /repos/:owner/:repo/branches
  GET    /repos/:owner/:repo/branches/:branch
  DELETE /repos/:owner/:repo
  GET    /repos/:owner/:repo/collaborators
  GET    /repos/:owner/:repo/collaborators/:user
  PUT    /repos/:owner/:repo/collaborators/:user
  DELETE /repos/:owner/:repo/collaborators/:user
  GET    /repos/:owner/:repo/comments
  GET    /repos/:owner/:repo/commits/:sha/comments
  POST   /repos/:owner/:repo/commits/:sha/comments
  GET    /repos/:owner/:repo/comments/:id
  PATCH  /repos/:owner/:repo/comments/:id
  DELETE /repos/:owner/:repo/comments/:id
  GET    /repos/:owner/:repo/commits
  GET    /repos/:owner/:repo/commits/:sha
  GET    /repos/:owner/:repo/readme
  GET    /repos/:owner/:repo/keys
  GET    /repos/:owner/:repo/keys/:id
  POST   /repos/:owner/:repo/keys
  PATCH  /repos/:owner/:repo/keys/:id
  DELETE /repos/:owner/:repo/keys/:id
  GET    /repos/:owner/:repo/downloads
  GET    /repos/:owner/:repo/downloads/:id
  DELETE /repos/:owner/:repo/downloads/:id
  GET    /repos/:owner/:repo/forks
  POST   /repos/:owner/:repo/forks
  GET    /repos/:owner/:repo/hooks
  GET    /repos/:owner/:repo/hooks/:id
  POST   /repos/:owner/:repo/hooks
  PATCH  /repos/:owner/:repo/hooks/:id
  POST   /repos/:owner/:repo/hooks/:id/tests
  DELETE /repos/:owner/:repo/hooks/:id
  POST   /repos/:owner/:repo/merges
  GET    /repos/:owner/:repo/releases
  GET    /repos/:owner/:repo/releases/:id
  POST   /repos/:owner/:repo/releases
  PATCH  /repos/:owner/:repo/releases/:id
  DELETE /repos/:owner/:repo/releases/:id
  GET    /repos/:owner/:repo/releases/:id/assets
  GET    /repos/:owner/:repo/stats/contributors
  GET    /repos/:owner/:repo/stats/commit_activity
  GET    /repos/:owner/:repo/stats/code_frequency
  GET    /repos/:owner/:repo/stats/participation
  GET    /repos/:owner/:repo/stats/punch_card
  GET    /repos/:owner/:repo/statuses/:ref
  POST   /repos/:owner/:repo/statuses/:ref
  GET    /search/repositories
  GET    /search/code
  GET    /search/issues
  GET    /search/users
  GET    /legacy/issues/search/:owner/:repository/:state/:keyword
  GET    /legacy/repos/search/:keyword
  GET    /legacy/user/search/:keyword
  GET    /legacy/user/email/:email
  GET    /users/:user
  GET    /user
  PATCH  /user
  GET    /users
  GET    /user/emails
  POST   /user/emails
  DELETE /user/emails
  GET    /users/:user/followers
  GET    /user/followers
  GET    /users/:user/following
  GET    /user/following
  GET    /user/following/:user
  GET    /users/:user/following/:target_user
  PUT    /user/following/:user
  DELETE /user/following/:user
  GET    /users/:user/keys
  GET    /user/keys
  GET    /user/keys/:id
  POST   /user/keys
  PATCH  /user/keys/:id
  DELETE /user/keys/:id
  GET    /repos/:owner/:repo/actions/artifacts
  GET    /repos/:owner/:repo/actions/artifacts/:artifact_id
  DELETE /repos/:owner/:repo/actions/artifacts/:artifact_id
  GET    /repos/:owner/:repo/actions/artifacts/:artifact_id/:archive_format
  GET    /repos/:owner/:repo/actions/caches
  DELETE /repos/:owner/:repo/actions/caches/:cache_id
  GET    /repos/:owner/:repo/actions/jobs/:job_id
  GET    /repos/:owner/:repo/actions/jobs/:job_id/logs
  POST   /repos/:owner/:repo/actions/jobs/:job_id/rerun
  GET    /repos/:owner/:repo/actions/runs
  GET    /repos/:owner/:repo/actions/runs/:run_id
  DELETE /repos/:owner/:repo/actions/runs/:run_id
  GET    /repos/:owner/:repo/actions/runs/:run_id/artifacts
  GET    /repos/:owner/:repo/actions/runs/:run_id/jobs
  GET    /repos/:owner/:repo/actions/runs/:run_id/logs
  DELETE /repos/:owner/:repo/actions/runs/:run_id/logs
  POST   /repos/:owner/:repo/actions/runs/:run_id/cancel
  POST   /repos/:owner/:repo/actions/runs/:run_id/rerun
  POST   /repos/:owner/:repo/actions/runs/:run_id/rerun-failed-jobs
  GET    /repos/:owner/:repo/actions/secrets
  GET    /repos/:owner/:repo/actions/secrets/:secret_name
  PUT    /repos/:owner/:repo/actions/secrets/:secret_name
  DELETE /repos/:owner/:repo/actions/secrets/:secret_name
  GET    /repos/:owner/:repo/actions/variables
  POST   /repos/:owner/:repo/actions/variables
  GET    /repos/:owner/:repo/actions/variables/:name
  PATCH  /repos/:owner/:repo/actions/variables/:name
  DELETE /repos/:owner/:repo/actions/variables/:name
  GET    /repos/:owner/:repo/actions/workflows
  GET    /repos/:owner/:repo/actions/workflows/:workflow_id
  PUT    /repos/:owner/:repo/actions/workflows/:workflow_id/disable
  PUT    /repos/:owner/:repo/actions/workflows/:workflow_id/enable
  POST   /repos/:owner/:repo/actions/workflows/:workflow_id/dispatches
  GET    /repos/:owner/:repo/actions/workflows/:workflow_id/runs
  GET    /orgs/:org/actions/secrets
  GET    /orgs/:org/actions/secrets/:secret_name
  PUT    /orgs/:org/actions/secrets/:secret_name
  DELETE /orgs/:org/actions/secrets/:secret_name
  POST   /repos/:owner/:repo/check-runs
  GET    /repos/:owner/:repo/check-runs/:check_run_id
  PATCH  /repos/:owner/:repo/check-runs/:check_run_id
  GET    /repos/:owner/:repo/check-runs/:check_run_id/annotations
  POST   /repos/:owner/:repo/check-suites
  GET    /repos/:owner/:repo/check-suites/:check_suite_id
  GET    /repos/:owner/:repo/check-suites/:check_suite_id/check-runs
  GET    /repos/:owner/:repo/commits/:ref/check-runs
  GET    /repos/:owner/:repo/commits/:ref/check-suites
  GET    /repos/:owner/:repo/commits/:ref/status
  GET    /repos/:owner/:repo/commits/:ref/statuses
  GET    /app
  GET    /app/installations
  GET    /app/installations/:installation_id
  DELETE /app/installations/:installation_id
  POST   /app/installations/:installation_id/access_tokens
  GET    /installation/repositories
  GET    /user/installations
  GET    /user/installations/:installation_id/repositories
  GET    /repos/:owner/:repo/installation
  GET    /orgs/:org/installation
  GET    /repos/:owner/:repo/deployments
  POST   /repos/:owner/:repo/deployments
  GET    /repos/:owner/:repo/deployments/:deployment_id
  DELETE /repos/:owner/:repo/deployments/:deployment_id
  GET    /repos/:owner/:repo/deployments/:deployment_id/statuses
  POST   /repos/:owner/:repo/deployments/:deployment_id/statuses
  GET    /repos/:owner/:repo/environments
  GET    /repos/:owner/:repo/environments/:environment_name
  PUT    /repos/:owner/:repo/environments/:environment_name
  DELETE /repos/:owner/:repo/environments/:environment_name
  GET    /repos/:owner/:repo/pages
  POST   /repos/:owner/:repo/pages
  GET    /repos/:owner/:repo/pages/builds
  GET    /repos/:owner/:repo/pages/builds/:build_id
  GET    /repos/:owner/:repo/pages/health
  GET    /repos/:owner/:repo/compare/:basehead
  GET    /repos/:owner/:repo/tarball/:ref
  GET    /repos/:owner/:repo/zipball/:ref
  GET    /repos/:owner/:repo/topics
  PUT    /repos/:owner/:repo/topics
  GET    /repos/:owner/:repo/license
  GET    /repos/:owner/:repo/traffic/clones
  GET    /repos/:owner/:repo/traffic/views
  GET    /repos/:owner/:repo/traffic/popular/paths
  GET    /repos/:owner/:repo/traffic/popular/referrers
  GET    /repos/:owner/:repo/pulls/:number/reviews
  POST   /repos/:owner/:repo/pulls/:number/reviews
  GET    /repos/:owner/:repo/pulls/:number/reviews/:review_id
  GET    /repos/:owner/:repo/pulls/:number/requested_reviewers
  POST   /repos/:owner/:repo/pulls/:number/requested_reviewers
  DELETE /repos/:owner/:repo/pulls/:number/requested_reviewers
  GET    /repos/:owner/:repo/branches/:branch/protection
  PUT    /repos/:owner/:repo/branches/:branch/protection
  DELETE /repos/:owner/:repo/branches/:branch/protection
  POST   /repos/:owner/:repo/dispatches
  GET    /octocat
  GET    /zen
  GET    /versions
  GET    /licenses
  GET    /licenses/:license
  GET    /codes_of_conduct
  GET    /codes_of_conduct/:key
`);

/**
 * Real GitHub routes with a static segment where a sibling route has a
 * parameter, which Hono's `RegExpRouter` cannot hold.
 */
export const githubSiblingRoutes: readonly BenchRoute[] = table(`
  GET    /gists/public
  GET    /gists/starred
  GET    /repos/:owner/:repo/issues/comments
  GET    /repos/:owner/:repo/issues/comments/:id
  PATCH  /repos/:owner/:repo/issues/comments/:id
  DELETE /repos/:owner/:repo/issues/comments/:id
  GET    /repos/:owner/:repo/issues/events
  GET    /repos/:owner/:repo/issues/events/:id
  GET    /repos/:owner/:repo/pulls/comments
  GET    /repos/:owner/:repo/pulls/comments/:number
  PATCH  /repos/:owner/:repo/pulls/comments/:number
  DELETE /repos/:owner/:repo/pulls/comments/:number
  GET    /repos/:owner/:repo/actions/secrets/public-key
  GET    /orgs/:org/actions/secrets/public-key
  GET    /repos/:owner/:repo/pages/builds/latest
  GET    /repos/:owner/:repo/releases/latest
  GET    /repos/:owner/:repo/releases/tags/:tag
  GET    /repos/:owner/:repo/releases/assets/:asset_id
`);

/** The whole table: about 340 GitHub REST API routes. */
export const githubRoutes: readonly BenchRoute[] = [
  ...githubRoutesWithoutSiblings,
  ...githubSiblingRoutes,
];
