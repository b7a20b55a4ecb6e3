import { useEffect, useState, type ReactNode } from 'react';
import { Link, usePath } from './router';
import { useSession, type SessionValue } from './session';
import { HomePage } from './pages/Home';
import { KeysPage } from './pages/Keys';
import { WebhooksPage } from './pages/Webhooks';
import { EventPage, EventsPage } from './pages/Events';
import { TransactionsPage } from './pages/Transactions';
import { SchedulePage, SchedulesPage } from './pages/Schedules';
import { DisputePage, DisputesPage } from './pages/Disputes';
import { CustomersPage } from './pages/Customers';
import { CustomerPage } from './pages/Consents';
import { DecisionPage, DecisionsPage } from './pages/Decisions';
import { MerchantsPage } from './pages/Merchants';
import { ApplicationsPage } from './pages/Applications';
import { ParticipantsPage } from './pages/Participants';
import { TeamPage } from './pages/Team';
import { AuditLogPage } from './pages/AuditLog';
import { SecurityPage } from './pages/Security';
import { TransactionPage } from './pages/Transactions';
import { DeliveryPage } from './pages/Delivery';
import { SearchField, SearchPage } from './pages/Search';
import { Page } from './ui';
import type { HttpMethod, ParticipantKind } from '../../functions/routes';

interface Entry {
  path: string;
  label: string;
  page: () => ReactNode;
  kinds: ParticipantKind[];
  /** The call the page is for: the page is in the menu only when the viewer's role may make it (routes.ts). */
  needs?: [HttpMethod, string];
}

const PARTICIPANTS: ParticipantKind[] = ['bank', 'merchant', 'provider'];

/** The pages, in the navigation's order, who sees each (DESIGN 8.4, 9.7). */
const PAGES: Entry[] = [
  { path: '', label: 'Home', page: () => <HomePage />, kinds: [...PARTICIPANTS, 'operator'] },
  { path: 'keys', label: 'API keys', page: () => <KeysPage />, kinds: PARTICIPANTS, needs: ['GET', '/v1/keys'] },
  { path: 'webhooks', label: 'Webhooks', page: () => <WebhooksPage />, kinds: PARTICIPANTS, needs: ['GET', '/v1/webhooks/endpoints'] },
  { path: 'events', label: 'Events', page: () => <EventsPage />, kinds: PARTICIPANTS, needs: ['GET', '/v1/events'] },
  {
    path: 'transactions',
    label: 'Transactions',
    page: () => <TransactionsPage />,
    kinds: PARTICIPANTS,
    needs: ['GET', '/v1/transaction-history'],
  },
  { path: 'disputes', label: 'Disputes', page: () => <DisputesPage />, kinds: ['merchant'], needs: ['GET', '/v1/disputes'] },
  { path: 'disputes', label: 'Disputes', page: () => <DisputesPage />, kinds: ['bank'], needs: ['GET', '/v1/bank/disputes'] },
  { path: 'schedules', label: 'Schedules', page: () => <SchedulesPage />, kinds: ['merchant'], needs: ['GET', '/v1/recurring'] },
  { path: 'customers', label: 'Customers', page: () => <CustomersPage />, kinds: ['bank'], needs: ['POST', '/v1/bank/customers'] },
  {
    path: 'decisions',
    label: 'Decisions',
    page: () => <DecisionsPage />,
    kinds: ['bank'],
    needs: ['GET', '/v1/bank/customer-decisions'],
  },
  { path: 'merchants', label: 'Merchants', page: () => <MerchantsPage />, kinds: ['provider'], needs: ['GET', '/v1/provider/merchants'] },
  {
    path: 'applications',
    label: 'Applications',
    page: () => <ApplicationsPage />,
    kinds: ['operator'],
    needs: ['GET', '/v1/operator/applications'],
  },
  {
    path: 'participants',
    label: 'Participants',
    page: () => <ParticipantsPage />,
    kinds: ['operator'],
    needs: ['GET', '/v1/operator/participants'],
  },
  { path: 'team', label: 'Team', page: () => <TeamPage />, kinds: PARTICIPANTS, needs: ['GET', '/v1/team/members'] },
  { path: 'audit-log', label: 'Audit log', page: () => <AuditLogPage />, kinds: PARTICIPANTS, needs: ['GET', '/v1/audit-log'] },
];

/** Pages of one object (deep-linkable: DESIGN 9.7), under a menu page; the rest of the path is the object's id. */
interface Detail {
  prefix: string;
  /** The menu page it belongs to. */
  parent: string;
  page: (id: string) => ReactNode;
  kinds: ParticipantKind[];
  needs: [HttpMethod, string];
}

const DETAILS: Detail[] = [
  {
    prefix: 'transactions/',
    parent: 'transactions',
    page: (id) => <TransactionPage reference={id} />,
    kinds: PARTICIPANTS,
    needs: ['GET', '/v1/transaction-details'],
  },
  {
    prefix: 'schedules/',
    parent: 'schedules',
    page: (id) => <SchedulePage scheduleId={id} />,
    kinds: ['merchant'],
    needs: ['GET', '/v1/recurring/{scheduleId}'],
  },
  {
    prefix: 'decisions/',
    parent: 'decisions',
    page: (id) => <DecisionPage id={id} />,
    kinds: ['bank'],
    needs: ['GET', '/v1/bank/customer-decisions'],
  },
  {
    // A merchant has no Decisions list: its decisions are reached from search and its schedules.
    prefix: 'decisions/',
    parent: 'schedules',
    page: (id) => <DecisionPage id={id} />,
    kinds: ['merchant'],
    needs: ['GET', '/v1/customer-decisions/{id}'],
  },
  {
    // DESIGN 10.5: a customer's consents, reached from its decisions and the Customers page.
    prefix: 'customers/',
    parent: 'decisions',
    page: (id) => <CustomerPage id={id} />,
    kinds: ['bank'],
    needs: ['GET', '/v1/bank/customers/{customerId}/consents'],
  },
  {
    prefix: 'events/',
    parent: 'events',
    page: (id) => <EventPage id={id} />,
    kinds: PARTICIPANTS,
    needs: ['GET', '/v1/events/{id}'],
  },
  {
    prefix: 'disputes/',
    parent: 'disputes',
    page: (id) => <DisputePage disputeId={id} />,
    kinds: ['merchant'],
    needs: ['GET', '/v1/disputes/{disputeId}'],
  },
  {
    prefix: 'disputes/',
    parent: 'disputes',
    page: (id) => <DisputePage disputeId={id} />,
    kinds: ['bank'],
    needs: ['GET', '/v1/bank/disputes/{disputeId}'],
  },
  {
    prefix: 'deliveries/',
    parent: 'webhooks',
    page: (id) => <DeliveryPage id={id} />,
    kinds: PARTICIPANTS,
    needs: ['GET', '/v1/webhooks/deliveries/{id}'],
  },
];

const SEARCH: Entry = { path: 'search', label: 'Search', page: () => <SearchPage />, kinds: PARTICIPANTS, needs: ['GET', '/v1/search'] };

const usable = (s: SessionValue, p: Entry) => p.kinds.includes(s.acting!.kind) && (!p.needs || s.can(...p.needs));

/** The signed-in shell: header, the menu of the pages this role can use, and the page at the URL. */
export function Layout() {
  const s = useSession();
  const path = usePath();
  const pages = PAGES.filter((p) => usable(s, p));
  // A live owner or admin sets up the authenticator app before any other page (DESIGN 9.7).
  const gated = s.mfa?.required === true && !s.mfa.enabled;
  const at = (d: Detail) => path.startsWith(d.prefix) && path.length > d.prefix.length;
  const detail = DETAILS.find((d) => at(d) && d.kinds.includes(s.acting!.kind)) ?? DETAILS.find(at);
  const detailUsable = detail?.kinds.includes(s.acting!.kind) && s.can(...detail.needs);
  const current = pages.find((p) => p.path === (detail && detailUsable ? detail.parent : path));
  const searchable = usable(s, SEARCH);
  // On a phone the menu folds behind `Menu` (DESIGN 10.7); a new page folds it again.
  const [menuOpen, setMenuOpen] = useState(false);
  // biome-ignore lint/correctness/useExhaustiveDependencies: folds on every change of page
  useEffect(() => setMenuOpen(false), [path]);
  let main: ReactNode;
  if (gated) main = <SecurityPage />;
  else if (detail && detailUsable) main = detail.page(decodeURIComponent(path.slice(detail.prefix.length)));
  else if (path === 'search' && searchable) main = SEARCH.page();
  else if (current) main = current.page();
  else if (path === 'security' && s.mfa) main = <SecurityPage />;
  else main = <Unavailable entry={PAGES.find((p) => p.path === path)} />;
  return (
    <div className={gated ? 'shell bare' : 'shell'}>
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header className="top">
        <span className="brand">idpay</span>
        <span className={`stage ${s.config.stage}`}>{s.config.stage === 'live' ? 'Live' : 'Sandbox'}</span>
        {s.memberships.length > 1 ? (
          <label className="switch">
            <span>Participant</span>
            <select value={s.current?.participantId} onChange={(e) => s.choose(e.target.value)}>
              {s.memberships.map((m) => (
                <option key={m.participantId} value={m.participantId}>
                  {m.name ?? m.participantId} ({m.kind})
                </option>
              ))}
            </select>
          </label>
        ) : (
          <span className="who">{s.current ? `${s.current.name ?? s.current.participantId} (${s.current.kind})` : 'Operator'}</span>
        )}
        {s.current && <span className="role">Role: {s.current.role}</span>}
        {(searchable || s.acting!.kind === 'operator') && !gated && <SearchField />}
        <span className="account">
          {s.mfa && !gated && (
            <Link to="security" aria-current={path === 'security' ? 'page' : undefined}>
              Security
            </Link>
          )}
          <button type="button" className="secondary" onClick={() => void s.signOut()}>
            Sign out
          </button>
        </span>
      </header>
      {!gated && (
        <nav aria-label="Main" className={menuOpen ? 'open' : undefined}>
          <button
            type="button"
            className="menu-toggle secondary"
            aria-expanded={menuOpen}
            aria-controls="main-menu"
            onClick={() => setMenuOpen((o) => !o)}
          >
            Menu
          </button>
          {current && <span className="menu-current">{current.label}</span>}
          <ul id="main-menu">
            {pages.map((p) => (
              <li key={p.path}>
                <Link to={p.path} aria-current={p === current && p.path === path ? 'page' : undefined}>
                  {p.label}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
      )}
      <main id="main" tabIndex={-1} key={gated ? 'security-required' : path}>
        {main}
      </main>
    </div>
  );
}

/** An address that is no page of this dashboard, or a page this role cannot use. */
function Unavailable({ entry }: { entry?: Entry }) {
  const s = useSession();
  if (!entry)
    return (
      <Page title="Page not found">
        <p>There is no page at this address.</p>
        <p>
          <Link to="">Go to Home</Link>
        </p>
      </Page>
    );
  return (
    <Page title={entry.label}>
      <p className="error" role="alert">
        {s.current
          ? `Your role (${s.current.role}) at ${s.current.name ?? s.current.participantId} does not give access to ${entry.label}.`
          : `${entry.label} is not part of the operator's dashboard.`}
      </p>
      <p>
        <Link to="">Go to Home</Link>
      </p>
    </Page>
  );
}
