// Search quality on a 1,500-skill collection (bench/data/search-corpus.mjs): a
// query naming a skill's purpose in other words finds it among the first
// five for at least 90 % of these queries. Each query was written from the
// skill's description as a user would ask for it, not from its name, and not
// changed after seeing the engine's answers.
import { describe, expect, it } from 'vitest'
import { searchCorpus } from '../bench/data/search-corpus.mjs'
import { pkg, recorder } from './helpers'

/** [query, the skill it is about] */
const QUERIES: [string, string][] = [
  ['pull the tables out of a PDF and split it into separate files', 'pdf-toolkit'],
  ['add tracked changes and comments to a Word document', 'docx-editor'],
  ['build a pivot table from an Excel sheet without breaking the number formats', 'xlsx-analyst'],
  ['turn my outline into a slide deck with speaker notes', 'pptx-builder'],
  ['make this report use our company colours and logo', 'brand-guidelines'],
  ['generative art with particles and flow fields in p5', 'algorithmic-art'],
  ['expose tools to a language model through a Model Context Protocol server', 'mcp-server-builder'],
  ['click through my local web app in a browser and capture screenshots', 'webapp-testing'],
  ['help me write a new skill with instructions and bundled scripts', 'skill-creator'],
  ['animated emoji gif for slack', 'slack-gif-maker'],
  ['write a leadership update about the incident for the company newsletter', 'internal-comms'],
  ['list features, fixes and breaking changes from merged pull requests for users', 'changelog-writer'],
  ['which commit introduced this regression? bisect automatically', 'git-bisect-helper'],
  ['a test fails only sometimes, find out why and quarantine it', 'flaky-test-hunter'],
  ['bump outdated packages one by one and rerun the tests', 'dependency-upgrader'],
  ['look for injection bugs and missing authorization checks in the code', 'security-audit'],
  ['did we leak an API token in the git history? how do I rotate it', 'secret-scanner'],
  ['this SQL query is slow, which indexes should I add', 'sql-query-optimizer'],
  ['reference docs for every endpoint from our openapi spec', 'api-docs-generator'],
  ['write a conventional commit message for my staged diff', 'commit-message-writer'],
  ['write the failing test first, then the simplest code that passes', 'tdd-coach'],
  ['find the root cause of a bug step by step with hypotheses and logging', 'systematic-debugging'],
  ['explore alternatives and trade-offs for a rough idea before coding', 'brainstorming'],
  ['make my container image smaller with multi-stage builds', 'dockerfile-optimizer'],
  ['check deployment yaml for missing probes and resource limits', 'k8s-manifest-linter'],
  ['will this terraform change destroy any resources before I apply it', 'terraform-plan-review'],
  ['our cloud bill is too high, find idle instances and unattached volumes', 'aws-cost-report'],
  ['blameless write-up after the outage with a timeline and follow-ups', 'incident-postmortem'],
  ['group similar error messages in huge log files and see when they started', 'log-analyzer'],
  ['explain this regular expression and give strings that should not match', 'regex-builder'],
  ['remove duplicate rows and fix date formats in a messy csv', 'csv-cleaner'],
  ['compare training runs with their hyperparameters and metrics', 'ml-experiment-tracker'],
  ['improve my LLM prompt with examples and an output format', 'prompt-engineer'],
  ['move hard-coded UI strings into translation files', 'i18n-extractor'],
  ['check colour contrast, alt text and keyboard navigation on a page', 'accessibility-checker'],
  ['avoid N+1 queries in GraphQL resolvers and design pagination', 'graphql-schema-designer'],
  ['action items and decisions from a meeting transcript', 'meeting-notes'],
  ['double this recipe and convert grams to cups', 'recipe-scaler'],
  ['flag unusual liability and termination clauses in this agreement', 'legal-contract-review'],
  ['get vendor names, dates and totals from scanned receipts', 'invoice-extractor'],
  ['why does my site rank badly? check meta descriptions, broken links and the sitemap', 'seo-audit'],
  ['format my bibliography in APA style', 'academic-citations'],
  ['make my bash script safer with strict mode, quoting and cleanup traps', 'shell-script-hardener'],
  ['reverse proxy with TLS and redirects in nginx', 'nginx-config'],
  ['memory of the service keeps growing, use heap snapshots to find out why', 'memory-leak-finder'],
  ['cannot borrow as mutable error, what ownership change fixes it', 'rust-borrow-helper'],
  ['publish my library to PyPI with a pyproject file and wheels', 'python-packaging'],
  ['delete dead code behind flags that are fully rolled out', 'feature-flag-cleanup'],
  ["are any of our dependencies' licenses incompatible with ours", 'license-checker'],
  ['document why we chose this option over the others and the consequences', 'architecture-decision-record'],
  ['acceptance criteria for a feature request', 'user-story-writer'],
  ['adapt my CV to this job posting', 'resume-tailor'],
  ['consistent, searchable log output for our django apps', 'django-logging'],
  ['dashboards and alerts for kafka consumers in prod', 'kafka-monitor'],
  ['disaster recovery plan for postgresql replicas', 'postgres-backup'],
  ['deadlocks in concurrent rust code', 'rust-concurrency'],
  ['how much do our terraform workspaces cost and how to spend less', 'terraform-cost'],
  ['multi-language support for react', 'react-localize'],
  ['close gaps in the security settings of kubernetes operators', 'kubernetes-secure'],
  ['lint and test airflow tasks on every push', 'airflow-ci'],
  ['throughput and latency of go modules under load', 'go-benchmark'],
  ['cache expiry for redis', 'redis-cache'],
  ['release notes and tags for a swift ios app', 'swift-release'],
  ['typed java client for a service with retries and timeouts', 'java-api-client'],
  // Fewer words in common with the description.
  ['shrink the docker image', 'dockerfile-optimizer'],
  ['how long would it take us to get the database back after losing it', 'backup-restore-drill'],
  ['who owns this file in our giant repository', 'monorepo-navigator'],
  ['look back on the last sprint with the team', 'sprint-retro'],
  ['schedule a nightly job', 'cron-scheduler'],
  ["can't log into the server over ssh, permission denied", 'ssh-troubleshooter'],
  ['flame graph of a slow program', 'performance-profiler'],
  ['summarise this paper for a non-expert', 'research-summarizer'],
  ['plan a week in Lisbon with trains and museum opening hours', 'travel-itinerary'],
  ['reply politely to a customer email', 'email-drafter'],
]

describe('search quality on 1,500 skills', () => {
  it('finds the skill a query describes among the first five for at least 90 % of the queries', async () => {
    const corpus = searchCorpus(1500)
    expect(corpus).toHaveLength(1500)
    expect(QUERIES.length).toBeGreaterThanOrEqual(50)
    const registry = new pkg.SkillRegistry({ logger: recorder().logger })
    for (const { name, description } of corpus) registry.register({ name, description, content: name })
    const misses: string[] = []
    let first = 0
    for (const [query, target] of QUERIES) {
      expect(corpus.some((s) => s.name === target), target).toBe(true)
      const top = (await registry.search(query, { limit: 5 })).skills.map((s) => s.name)
      if (top[0] === target) first++
      if (!top.includes(target)) misses.push(`${JSON.stringify(query)} → ${top.join(', ') || 'nothing'} (wanted ${target})`)
    }
    const found = QUERIES.length - misses.length
    const percent = (n: number) => `${((100 * n) / QUERIES.length).toFixed(1)} %`
    console.log(
      `search quality: ${found}/${QUERIES.length} in the top 5 (${percent(found)}), ${first} first (${percent(first)})` +
        (misses.length ? `\n  ${misses.join('\n  ')}` : ''),
    )
    expect(found / QUERIES.length).toBeGreaterThanOrEqual(0.9)
  })
})
