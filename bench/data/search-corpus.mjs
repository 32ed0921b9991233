// A skill collection of 1,500 for search: descriptions of real variety,
// generated (never stored). Two parts:
//
// - HANDWRITTEN: 80 skills of the kinds public collections hold (documents,
//   engineering practice, operations, data, writing, everyday tasks), each
//   described in its own words;
// - the rest: every technology of DOMAINS crossed with every job of TASKS
//   ("review Django changes", "back up Redis data", …), the near-duplicates
//   a big collection is full of, each description from one of the job's
//   phrasings and one of the technology's subjects, picked by a seeded
//   generator, so the same call always gives the same collection.
//
// The queries of __test__/search-quality.test.ts were written from these
// descriptions (not from the names). Used by that test and by
// bench/search.mjs (it lives under bench/data/ so that bench/run.mjs does not run it).

export const HANDWRITTEN = [
  ['pdf-toolkit', 'Extract text and tables from PDF files, merge or split documents, fill in form fields and add watermarks.'],
  ['docx-editor', 'Create and edit Word documents: tracked changes, comments, headings, tables of contents and page formatting.'],
  ['xlsx-analyst', 'Work with Excel spreadsheets: read sheets, write formulas, build pivot tables and charts, and keep number formats intact.'],
  ['pptx-builder', 'Build PowerPoint slide decks from an outline, with speaker notes, consistent layouts and embedded charts.'],
  ['brand-guidelines', "Apply the company's colours, typography and logo rules to any document, slide or web page so it looks on-brand."],
  ['canvas-design', 'Design posters and visual artwork as PNG or PDF from a design philosophy, with careful composition and original imagery.'],
  ['algorithmic-art', 'Create generative art with p5.js: seeded randomness, flow fields and particle systems, exported as interactive sketches.'],
  ['mcp-server-builder', 'Guide for building Model Context Protocol servers that expose tools and resources to language models, in Python or TypeScript.'],
  ['webapp-testing', 'Test local web applications with Playwright: start the dev server, click through pages, capture screenshots and browser console logs.'],
  ['skill-creator', 'Write a new skill from scratch: choose its name, describe when it applies, structure the instructions and bundle scripts or references.'],
  ['slack-gif-maker', "Make small animated GIFs that fit Slack's size limits for emoji and reactions."],
  ['theme-factory', 'Apply a ready-made visual theme (colours and fonts) to artifacts such as slides, reports and landing pages.'],
  ['internal-comms', 'Draft internal communications: status reports, leadership updates, incident summaries and company newsletters.'],
  ['changelog-writer', 'Turn merged pull requests and commit history into a user-facing changelog grouped by features, fixes and breaking changes.'],
  ['git-bisect-helper', 'Find the commit that introduced a regression by running a bisection with an automated test script.'],
  ['flaky-test-hunter', 'Track down tests that pass and fail intermittently: rerun them in loops, isolate timing and ordering dependencies, and quarantine them.'],
  ['dependency-upgrader', 'Upgrade outdated packages safely: read release notes, bump versions one at a time and run the test suite after each.'],
  ['security-audit', 'Audit code for vulnerabilities such as injection, unsafe deserialization, hard-coded secrets and missing authorization checks.'],
  ['secret-scanner', 'Scan the repository and its history for leaked API keys, tokens and passwords, and explain how to rotate them.'],
  ['sql-query-optimizer', 'Speed up slow SQL queries: read the execution plan, add the right indexes and rewrite joins and subqueries.'],
  ['api-docs-generator', 'Generate reference documentation for a REST API from its OpenAPI specification, with examples for every endpoint.'],
  ['commit-message-writer', 'Write clear commit messages in the conventional commits style from the staged diff.'],
  ['pr-description', "Summarise a branch's changes into a pull request description with motivation, testing notes and screenshots."],
  ['code-reviewer', 'Review a diff for bugs, edge cases, readability and missing tests, and leave actionable comments.'],
  ['tdd-coach', 'Practise test-driven development: write a failing test first, make it pass with the simplest code, then refactor.'],
  ['systematic-debugging', 'Debug a failure methodically: reproduce it, form hypotheses, add logging, and narrow down the root cause before fixing.'],
  ['brainstorming', 'Turn a rough idea into a design through questions, alternatives and trade-offs before any code is written.'],
  ['writing-plans', 'Break a feature into a step-by-step implementation plan with small tasks, file paths and verification steps.'],
  ['dockerfile-optimizer', 'Shrink container images and speed up builds: multi-stage builds, layer caching, smaller base images.'],
  ['k8s-manifest-linter', 'Check Kubernetes manifests for missing resource limits, probes, security contexts and deprecated API versions.'],
  ['helm-chart-author', 'Package an application as a Helm chart with templated values, dependencies and upgrade hooks.'],
  ['terraform-plan-review', 'Read a Terraform plan before it is applied and point out resources that will be destroyed or replaced.'],
  ['aws-cost-report', 'Break down the monthly cloud bill by service and team, and find idle instances and unattached volumes to cut costs.'],
  ['incident-postmortem', 'Write a blameless postmortem after an outage: timeline, impact, root cause, and follow-up actions with owners.'],
  ['on-call-runbook', 'Write runbooks for alerts: what the alert means, how to check the system, and the steps to mitigate.'],
  ['log-analyzer', 'Search large log files for errors and anomalies, group similar messages and show when they started.'],
  ['regex-builder', 'Build and explain regular expressions, with test strings that match and ones that must not.'],
  ['csv-cleaner', 'Clean messy CSV data: fix encodings, trim whitespace, normalise dates and remove duplicate rows.'],
  ['data-viz', 'Turn a dataset into clear charts with matplotlib or Vega-Lite, choosing the chart type that fits the question.'],
  ['jupyter-notebook-tidy', 'Tidy Jupyter notebooks: clear outputs, order cells, extract reusable functions into modules.'],
  ['ml-experiment-tracker', 'Log machine learning experiments: hyperparameters, metrics and model artifacts, and compare training runs.'],
  ['prompt-engineer', 'Improve prompts for language models: clearer instructions, examples, output formats and evaluation cases.'],
  ['translation-helper', 'Translate user interface strings and documentation while keeping placeholders, plurals and tone.'],
  ['i18n-extractor', 'Find hard-coded user-facing strings in the source code and move them into translation files.'],
  ['accessibility-checker', 'Check web pages for accessibility problems: contrast, alt text, keyboard navigation and ARIA roles.'],
  ['css-refactor', 'Untangle stylesheets: remove dead rules, merge duplicates and move magic numbers into design tokens.'],
  ['react-component-gen', "Scaffold React components with props types, stories and unit tests that follow the project's conventions."],
  ['graphql-schema-designer', 'Design GraphQL schemas: types, pagination, errors and deprecations, with resolvers that avoid N+1 queries.'],
  ['database-migration', 'Write reversible database schema migrations and backfill data without locking big tables.'],
  ['backup-restore-drill', 'Rehearse restoring databases from backups and measure how long recovery takes.'],
  ['email-drafter', 'Draft professional emails from a few bullet points, matching the tone to the recipient.'],
  ['meeting-notes', 'Turn a meeting transcript into notes with decisions, open questions and action items per person.'],
  ['resume-tailor', 'Tailor a CV to a job posting by highlighting the matching experience and keywords.'],
  ['recipe-scaler', 'Scale cooking recipes up or down and convert between metric and imperial units.'],
  ['travel-itinerary', 'Plan a trip day by day with transport, bookings, opening hours and a budget.'],
  ['legal-contract-review', 'Read contracts and flag unusual clauses on liability, termination, payment terms and intellectual property.'],
  ['invoice-extractor', 'Pull totals, dates, vendor names and line items out of scanned invoices and receipts.'],
  ['seo-audit', 'Audit a website for search engine optimisation: titles, meta descriptions, broken links, page speed and sitemaps.'],
  ['social-media-post', 'Write short posts for social networks in several lengths and tones, with hashtags.'],
  ['blog-post-writer', 'Write a long-form blog article from an outline with an engaging introduction and clear sections.'],
  ['academic-citations', 'Format citations and bibliographies in APA, MLA or Chicago style and check them against the sources.'],
  ['research-summarizer', 'Summarise scientific papers: question, method, results, limitations, in plain language.'],
  ['shell-script-hardener', 'Make bash scripts robust: strict mode, quoting, traps for cleanup and shellcheck warnings fixed.'],
  ['cron-scheduler', 'Write cron expressions and systemd timers for recurring jobs, and explain when they will run.'],
  ['ssh-troubleshooter', 'Diagnose SSH connection failures: keys, permissions, known hosts, agent forwarding and firewall rules.'],
  ['nginx-config', 'Write nginx configurations for reverse proxies, TLS certificates, redirects and caching headers.'],
  ['performance-profiler', 'Profile slow programs with flame graphs, find hot paths and memory allocations, and measure improvements.'],
  ['memory-leak-finder', 'Find memory leaks in long-running services using heap snapshots and allocation tracking.'],
  ['rust-borrow-helper', 'Explain Rust borrow checker errors and suggest ownership changes, lifetimes or clones that fix them.'],
  ['python-packaging', 'Package a Python library with pyproject.toml, build wheels and publish them to PyPI.'],
  ['go-module-maintainer', 'Maintain Go modules: tidy dependencies, tag semantic versions and keep go.sum consistent.'],
  ['ios-release', 'Prepare an iOS app release: bump build numbers, archive, sign and upload to App Store Connect.'],
  ['android-gradle-fixer', 'Fix Android Gradle build failures: dependency conflicts, SDK versions and signing configuration.'],
  ['feature-flag-cleanup', 'Remove feature flags that are fully rolled out, deleting the dead branches of code behind them.'],
  ['monorepo-navigator', 'Find your way in a large monorepo: which package owns a file, who depends on it, and how to build just that part.'],
  ['license-checker', "List the licenses of all dependencies and flag ones that are incompatible with the project's license."],
  ['onboarding-guide', 'Write an onboarding guide for new engineers: setting up the environment, architecture overview and first tasks.'],
  ['architecture-decision-record', 'Record an architecture decision: context, options considered, the choice and its consequences.'],
  ['user-story-writer', 'Turn feature requests into user stories with acceptance criteria and edge cases.'],
  ['sprint-retro', 'Run a sprint retrospective: collect what went well and badly, group themes and agree on improvements.'],
]

/** Technologies: slug, label, and subjects a description may be about. */
export const DOMAINS = [
  ['python', 'Python', ['scripts', 'packages', 'web services']],
  ['typescript', 'TypeScript', ['Node services', 'front-end apps', 'type definitions']],
  ['rust', 'Rust', ['crates', 'command-line tools', 'async services']],
  ['go', 'Go', ['microservices', 'command-line tools', 'modules']],
  ['java', 'Java', ['services', 'libraries', 'batch jobs']],
  ['kotlin', 'Kotlin', ['Android apps', 'backend services', 'coroutines']],
  ['swift', 'Swift', ['iOS apps', 'packages', 'SwiftUI views']],
  ['ruby', 'Ruby', ['gems', 'scripts', 'background jobs']],
  ['php', 'PHP', ['web apps', 'Composer packages', 'WordPress plugins']],
  ['csharp', 'C#', ['.NET services', 'desktop apps', 'NuGet packages']],
  ['postgres', 'PostgreSQL', ['databases', 'queries', 'replicas']],
  ['mysql', 'MySQL', ['databases', 'queries', 'replication']],
  ['redis', 'Redis', ['caches', 'queues', 'data']],
  ['kafka', 'Kafka', ['topics', 'consumers', 'producers']],
  ['elasticsearch', 'Elasticsearch', ['indices', 'clusters', 'search queries']],
  ['mongodb', 'MongoDB', ['collections', 'clusters', 'aggregations']],
  ['kubernetes', 'Kubernetes', ['workloads', 'clusters', 'operators']],
  ['docker', 'Docker', ['images', 'compose setups', 'containers']],
  ['terraform', 'Terraform', ['modules', 'workspaces', 'state']],
  ['ansible', 'Ansible', ['playbooks', 'roles', 'inventories']],
  ['aws', 'AWS', ['Lambda functions', 'accounts', 'S3 buckets']],
  ['gcp', 'Google Cloud', ['projects', 'Cloud Run services', 'BigQuery datasets']],
  ['azure', 'Azure', ['subscriptions', 'Functions', 'resource groups']],
  ['react', 'React', ['components', 'apps', 'hooks']],
  ['vue', 'Vue', ['components', 'apps', 'stores']],
  ['angular', 'Angular', ['modules', 'apps', 'services']],
  ['django', 'Django', ['views', 'models', 'apps']],
  ['rails', 'Rails', ['controllers', 'models', 'apps']],
  ['spring', 'Spring Boot', ['services', 'controllers', 'beans']],
  ['nextjs', 'Next.js', ['pages', 'apps', 'API routes']],
  ['graphql', 'GraphQL', ['APIs', 'resolvers', 'schemas']],
  ['grpc', 'gRPC', ['services', 'protobuf definitions', 'clients']],
  ['android', 'Android', ['apps', 'activities', 'libraries']],
  ['ios', 'iOS', ['apps', 'extensions', 'frameworks']],
  ['unity', 'Unity', ['games', 'scenes', 'scripts']],
  ['llm', 'LLM', ['agents', 'prompts', 'pipelines']],
  ['spark', 'Spark', ['jobs', 'pipelines', 'clusters']],
  ['airflow', 'Airflow', ['DAGs', 'tasks', 'deployments']],
  ['dbt', 'dbt', ['models', 'projects', 'tests']],
  ['snowflake', 'Snowflake', ['warehouses', 'tables', 'pipelines']],
]

/** Jobs: slug, and phrasings where {L} is the technology and {T} one of its subjects. */
export const TASKS = [
  ['review', ['Review {L} changes for correctness and style: {T}, error handling and naming, with concrete suggestions.', 'Go over {L} {T} before they merge and comment on risky changes and missing tests.']],
  ['lint', ['Set up and run linters for {L} {T}, explain each warning and fix them in bulk.', 'Configure static analysis for {L} {T} and clean up what it reports.']],
  ['test', ['Write unit and integration tests for {L} {T}, with fixtures and clear failure messages.', 'Raise test coverage of {L} {T} where it matters most.']],
  ['debug', ['Debug failing {L} {T}: read the stack trace, reproduce it locally and find the cause.', 'Investigate crashes and wrong results in {L} {T} until the cause is known.']],
  ['migrate', ['Migrate {L} {T} to a newer major version, following the upgrade guide step by step.', 'Move {L} {T} off deprecated APIs before support ends.']],
  ['upgrade', ['Keep {L} dependencies current: check for outdated libraries, read changelogs and bump them safely.', 'Update the libraries {L} {T} depend on without breaking the build.']],
  ['document', ['Write documentation for {L} {T}: usage examples, parameters and common pitfalls.', 'Produce a reference guide for {L} {T} that newcomers can follow.']],
  ['deploy', ['Deploy {L} {T} to production with a rollout plan and a way to roll back.', 'Ship {L} {T} through staging to production with health checks.']],
  ['monitor', ['Monitor {L} {T} in production: dashboards, alerts on error rates and latency.', 'Watch the health of {L} {T} and page someone when it degrades.']],
  ['benchmark', ['Benchmark {L} {T}, compare variants and report the numbers with their variance.', 'Measure the throughput and latency of {L} {T} under load.']],
  ['secure', ['Harden {L} {T} against common attacks and misconfigurations.', 'Review the security settings of {L} {T} and close the gaps.']],
  ['refactor', ['Refactor {L} {T} into smaller units without changing behaviour, guarded by tests.', 'Simplify tangled {L} {T} step by step.']],
  ['scaffold', ['Start a new {L} project with a sensible layout for {T}, tooling and a first test.', 'Generate the boilerplate for new {L} {T}.']],
  ['format', ['Apply consistent formatting to {L} sources and configure the formatter for the team.', 'Agree on and enforce a code format for {L} {T}.']],
  ['package', ['Package and version {L} {T} for distribution to other teams.', 'Publish {L} {T} to an internal registry with proper versioning.']],
  ['release', ['Cut a release of {L} {T}: changelog, version tag and published artifacts.', 'Prepare release notes and tags for {L} {T}.']],
  ['profile', ['Profile {L} {T} to find CPU and memory hot spots.', 'Find out why {L} {T} are slow and where the time goes.']],
  ['cache', ['Add caching to {L} {T} and decide when entries expire.', 'Speed up {L} {T} by caching expensive results.']],
  ['backup', ['Back up {L} {T} on a schedule and verify that restores work.', 'Plan disaster recovery for {L} {T}.']],
  ['config', ['Manage {L} configuration for {T} across development, staging and production.', 'Keep settings of {L} {T} out of the code and per environment.']],
  ['logging', ['Add structured logging to {L} {T} with request ids and useful levels.', 'Make the logs of {L} {T} searchable and consistent.']],
  ['metrics', ['Expose metrics from {L} {T} for Prometheus and chart them.', 'Count what matters in {L} {T} and graph it over time.']],
  ['ci', ['Set up continuous integration for {L} {T}: build, test and lint on every push.', 'Speed up the CI pipeline of {L} {T}.']],
  ['errors', ['Design error handling for {L} {T}: typed errors, retries and messages users can act on.', 'Make failures in {L} {T} easier to understand and recover from.']],
  ['api-client', ['Generate a typed API client for {L} from a service definition, with retries and timeouts.', 'Wrap a remote API for {L} {T} with a small client library.']],
  ['fixtures', ['Create realistic test data and fixtures for {L} {T}.', 'Seed local environments of {L} {T} with sample data.']],
  ['localize', ['Prepare {L} {T} for translation into other languages.', 'Add multi-language support to {L} {T}.']],
  ['cost', ['Estimate and reduce what {L} {T} cost to run.', 'Find waste in the spending on {L} {T}.']],
  ['access-control', ['Define roles and permissions for {L} {T} and check them consistently.', 'Restrict who may change {L} {T}.']],
  ['cleanup', ['Find and delete unused {L} {T} and dead code.', 'Remove leftovers from {L} {T} nobody uses any more.']],
  ['troubleshoot', ['Troubleshoot {L} {T} that behave differently between environments.', 'Find why {L} {T} work on one machine and fail on another.']],
  ['schema', ['Design and evolve the data schema used by {L} {T}, keeping old readers working.', 'Change the data model of {L} {T} without breaking compatibility.']],
  ['style-guide', ["Explain the team's {L} style guide for {T} with good and bad examples.", 'Teach the conventions the team follows in {L} {T}.']],
  ['onboarding', ["Help a newcomer learn the team's {L} {T}: where things live and how to run them.", 'Walk a new engineer through {L} {T} on their first day.']],
  ['concurrency', ['Find race conditions and deadlocks in concurrent {L} {T}.', 'Make {L} {T} safe to run in parallel.']],
  ['tracing', ['Add distributed tracing to {L} {T} so slow requests can be followed across services.', 'Follow one request through {L} {T} with trace spans.']],
]

/** A seeded generator (mulberry32). */
function random(seed) {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/**
 * `count` skills (`{ name, description }`, names unique, in no particular
 * order): the handwritten ones, then technology × job ones, in an order the
 * seed decides.
 */
export function searchCorpus(count = 1500, seed = 26) {
  const next = random(seed)
  const pick = (list) => list[Math.floor(next() * list.length)]
  const skills = HANDWRITTEN.map(([name, description]) => ({ name, description }))
  const combos = []
  for (const [slug, label, subjects] of DOMAINS) {
    for (const [task, phrasings] of TASKS) {
      const description = pick(phrasings).replaceAll('{L}', label).replaceAll('{T}', pick(subjects))
      combos.push({ name: `${slug}-${task}`, description })
    }
  }
  // A seeded shuffle decides which combinations make up the count.
  for (let i = combos.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1))
    ;[combos[i], combos[j]] = [combos[j], combos[i]]
  }
  const names = new Set(skills.map((s) => s.name))
  for (const combo of combos) {
    if (skills.length >= count) break
    if (names.has(combo.name)) continue
    names.add(combo.name)
    skills.push(combo)
  }
  return skills.slice(0, count)
}
