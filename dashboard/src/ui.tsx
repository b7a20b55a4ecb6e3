/** The dashboard's building blocks: loading, empty and error states, tables that scroll at 375 px, forms. */
import { useCallback, useEffect, useId, useRef, useState, type FormEvent, type ReactNode } from 'react';
import { ApiError } from './api';
import { Link } from './router';

export interface Loaded<T> {
  data?: T;
  error?: Error;
  loading: boolean;
  reload(): void;
}

/** Runs `load` on mount and whenever `deps` change; `reload()` runs it again. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): Loaded<T> {
  const [state, setState] = useState<{ data?: T; error?: Error; loading: boolean }>({ loading: true });
  const [n, setN] = useState(0);
  // biome-ignore lint/correctness/useExhaustiveDependencies: the caller names what `load` depends on (`deps`)
  useEffect(() => {
    let live = true;
    setState((s) => ({ ...s, loading: true, error: undefined }));
    load().then(
      (data) => live && setState({ data, loading: false }),
      (error: Error) => live && setState({ error, loading: false }),
    );
    return () => {
      live = false;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [...deps, n]);
  return { ...state, reload: useCallback(() => setN((x) => x + 1), []) };
}

export function Loading({ label = 'Loading…' }: { label?: string }) {
  return (
    <p role="status" className="loading">
      {label}
    </p>
  );
}

/** The API's own message (its envelope), with field details when it gave them. */
export function ErrorMessage({ error }: { error?: Error }) {
  if (!error) return null;
  const details = error instanceof ApiError ? error.details : [];
  return (
    <div role="alert" className="error">
      <p>{error.message}</p>
      {details.length > 0 && (
        <ul>
          {details.map((d, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: a fixed list of one error's details
            <li key={i}>{d.path ? `${d.path}: ${d.message}` : d.message}</li>
          ))}
        </ul>
      )}
    </div>
  );
}

export function Empty({ children }: { children: ReactNode }) {
  return <p className="empty">{children}</p>;
}

/** Sets the tab's title (`<title> · idpay dashboard`); on arrival moves focus to the heading. */
export function useTitle(title: string) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = `${title} · idpay dashboard`;
  }, [title]);
  useEffect(() => heading.current?.focus(), []);
  return heading;
}

export function Page({ title, actions, children }: { title: string; actions?: ReactNode; children: ReactNode }) {
  const heading = useTitle(title);
  return (
    <section aria-labelledby="page-title" className="page">
      <header className="page-head">
        <h1 id="page-title" ref={heading} tabIndex={-1}>
          {title}
        </h1>
        {actions && <div className="actions">{actions}</div>}
      </header>
      {children}
    </section>
  );
}

export interface Column<T> {
  header: string;
  cell(row: T): ReactNode;
}

/** A table in a focusable scroll region (usable by keyboard at 375 px), or the empty state. */
export function Table<T>({
  caption,
  columns,
  rows,
  rowKey,
  empty,
}: {
  caption: string;
  columns: Column<T>[];
  rows: T[];
  rowKey(row: T): string;
  empty: string;
}) {
  if (rows.length === 0) return <Empty>{empty}</Empty>;
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must take keyboard focus (axe scrollable-region-focusable)
    // biome-ignore lint/a11y/useSemanticElements: a <section> would add a landmark per table
    <div className="table-scroll" role="region" aria-label={caption} tabIndex={0}>
      <table>
        <caption>{caption}</caption>
        <thead>
          <tr>
            {columns.map((c) => (
              <th key={c.header} scope="col">
                {c.header}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={rowKey(r)}>
              {columns.map((c) => (
                <td key={c.header}>{c.cell(r)}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/**
 * A form whose submit runs `onSubmit`, showing progress and the API's error. After success the
 * form is cleared (DESIGN 10.7: a second click must not repeat the action); `onSubmit` returns
 * `false` when nothing was done (a check refused a field, a dialog was cancelled): the values stay.
 */
export function Form({
  label,
  submit,
  onSubmit,
  children,
}: {
  label: string;
  submit: string;
  onSubmit(data: FormData): Promise<void | false>;
  children: ReactNode;
}) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<Error>();
  const handle = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = e.currentTarget;
    setBusy(true);
    setError(undefined);
    try {
      if ((await onSubmit(new FormData(form))) !== false) form.reset();
    } catch (err) {
      setError(err as Error);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form aria-label={label} onSubmit={handle} className="form">
      {children}
      <ErrorMessage error={error} />
      <button type="submit" disabled={busy}>
        {busy ? 'Working…' : submit}
      </button>
    </form>
  );
}

export function Field(props: {
  label: string;
  name: string;
  type?: string;
  required?: boolean;
  defaultValue?: string;
  autoComplete?: string;
  placeholder?: string;
  hint?: string;
  /** The reason the value was refused (shown under the field, which is marked invalid). */
  error?: string;
  inputMode?: 'numeric' | 'decimal' | 'email' | 'text';
  maxLength?: number;
}) {
  const id = useId();
  const hint = props.hint ? `${id}-hint` : undefined;
  const error = props.error ? `${id}-error` : undefined;
  const describedBy = [hint, error].filter(Boolean).join(' ') || undefined;
  return (
    <div className="field">
      <label htmlFor={id}>{props.label}</label>
      <input
        id={id}
        name={props.name}
        type={props.type ?? 'text'}
        required={props.required}
        defaultValue={props.defaultValue}
        autoComplete={props.autoComplete}
        placeholder={props.placeholder}
        inputMode={props.inputMode}
        maxLength={props.maxLength}
        aria-invalid={props.error ? true : undefined}
        aria-describedby={describedBy}
      />
      {props.hint && (
        <small id={hint} className="hint">
          {props.hint}
        </small>
      )}
      {props.error && (
        <small id={error} className="field-error">
          {props.error}
        </small>
      )}
    </div>
  );
}

/** A 6-digit code: e-mailed (confirmation, password reset) or shown by an authenticator app. */
export const CodeField = (props: { label: string; hint?: string; error?: string }) => (
  <Field {...props} name="code" inputMode="numeric" autoComplete="one-time-code" maxLength={6} />
);

export function Select(props: {
  label: string;
  name: string;
  options: readonly (string | [string, string])[];
  defaultValue?: string;
  onChange?(v: string): void;
}) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{props.label}</label>
      <select id={id} name={props.name} defaultValue={props.defaultValue} onChange={(e) => props.onChange?.(e.target.value)}>
        {props.options.map((o) => {
          const [value, text] = Array.isArray(o) ? o : [o, o];
          return (
            <option key={value} value={value}>
              {text}
            </option>
          );
        })}
      </select>
    </div>
  );
}

export interface Confirmation {
  title: string;
  message: ReactNode;
  /**
   * Fields the question asks for (an authenticator code) and what `Confirm` does with them: an
   * error it throws is shown in the dialog, which stays open; once it succeeds the dialog closes
   * and `ask` resolves to true.
   */
  fields?: ReactNode;
  run?(data: FormData): Promise<void>;
}

/**
 * A question before an action that moves money, removes or changes something (DESIGN 9.7,
 * 10.7): `ask()` opens a modal dialog (role `dialog`, named by its title) with `Confirm` and
 * `Cancel` and resolves to the answer; render `dialog` where the question belongs. Focus starts
 * on `Cancel` (the safe choice) and returns to the element that opened it when it closes.
 */
export function useConfirm(): { ask(c: Confirmation): Promise<boolean>; dialog: ReactNode } {
  const [open, setOpen] = useState<Confirmation & { answer(yes: boolean): void; opener: Element | null }>();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<Error>();
  const ref = useRef<HTMLDialogElement>(null);
  const cancel = useRef<HTMLButtonElement>(null);
  const titleId = useId();
  useEffect(() => {
    if (open && ref.current && !ref.current.open) {
      ref.current.showModal();
      cancel.current?.focus();
    }
  }, [open]);
  const answer = (yes: boolean) => {
    ref.current?.close();
    open?.answer(yes);
    setOpen(undefined);
    setError(undefined);
    (open?.opener as HTMLElement | null)?.focus?.();
  };
  const confirm = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    if (!open?.run) return answer(true);
    setBusy(true);
    setError(undefined);
    try {
      await open.run(new FormData(e.currentTarget));
      answer(true);
    } catch (err) {
      setError(err as Error);
    } finally {
      setBusy(false);
    }
  };
  const dialog = open ? (
    <dialog
      ref={ref}
      aria-labelledby={titleId}
      className="confirm"
      onCancel={(e) => {
        e.preventDefault();
        answer(false);
      }}
    >
      <form onSubmit={confirm} noValidate>
        <h2 id={titleId}>{open.title}</h2>
        <div>{open.message}</div>
        {open.fields}
        <ErrorMessage error={error} />
        <div className="row">
          <button type="submit" className="danger" disabled={busy}>
            Confirm
          </button>
          <button type="button" className="secondary" ref={cancel} onClick={() => answer(false)}>
            Cancel
          </button>
        </div>
      </form>
    </dialog>
  ) : null;
  return {
    ask: (c) => new Promise<boolean>((resolve) => setOpen({ ...c, answer: resolve, opener: document.activeElement })),
    dialog,
  };
}

/** A button that runs an action (after `confirm`, when given), then reports its outcome (the API's message on failure). */
export function ActionButton({
  label,
  action,
  onDone,
  accessibleName,
  danger,
  confirm,
}: {
  label: string;
  accessibleName?: string;
  action(): Promise<unknown>;
  onDone?(): void;
  danger?: boolean;
  confirm?: Confirmation;
}) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<Error>();
  const question = useConfirm();
  return (
    <span className="action">
      {question.dialog}
      <button
        type="button"
        className={danger ? 'danger' : undefined}
        aria-label={accessibleName}
        disabled={busy}
        onClick={async () => {
          if (confirm && !(await question.ask(confirm))) return;
          setBusy(true);
          setError(undefined);
          try {
            await action();
            onDone?.();
          } catch (e) {
            setError(e as Error);
          } finally {
            setBusy(false);
          }
        }}
      >
        {label}
      </button>
      <ErrorMessage error={error} />
    </span>
  );
}

/** A value the user copies once (a new API key, a webhook secret). */
export function ShownOnce({ label, value }: { label: string; value: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <div className="shown-once" role="status">
      <p>
        <strong>{label}</strong> (shown once: store it now)
      </p>
      <code data-testid="shown-once">{value}</code>
      <button
        type="button"
        onClick={() =>
          navigator.clipboard?.writeText(value).then(
            () => setCopied(true),
            () => setCopied(false),
          )
        }
      >
        Copy
      </button>
      {copied && <span> Copied</span>}
    </div>
  );
}

export function Json({ value }: { value: unknown }) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling block must take keyboard focus (axe scrollable-region-focusable)
    // biome-ignore lint/a11y/useAriaPropsSupportedByRole: its name is read when it takes focus
    <pre className="json" tabIndex={0} aria-label="JSON">
      {JSON.stringify(value, null, 2)}
    </pre>
  );
}

/** The button that opens and closes one row's detail (`open` is the id shown, if any). */
export function DetailToggle({
  id,
  open,
  onToggle,
  show = 'View',
  hide = 'Hide',
}: {
  id: string;
  open?: string;
  onToggle(next?: string): void;
  show?: string;
  hide?: string;
}) {
  return (
    <button type="button" aria-expanded={open === id} onClick={() => onToggle(open === id ? undefined : id)}>
      {open === id ? hide : show}
    </button>
  );
}

/** Who an id is (DESIGN 9.7 "names and e-mails beside ids"): the name, its e-mail when known, then the id (linked when `to`). */
export function Named({ name, email, id, to }: { name?: string | null; email?: string | null; id: string; to?: string }) {
  const code = <code>{id}</code>;
  return (
    <span className="named">
      {name && <span>{name}</span>}
      {email && <span className="muted">{email}</span>}
      {to ? <Link to={to}>{code}</Link> : code}
    </span>
  );
}

/** A customer beside its id (name and e-mail when the answer has them), linked to the customer's transactions. */
export const CustomerNamed = ({ id, customer }: { id: string; customer?: { name: string; email: string } | null }) => (
  <Named name={customer?.name} email={customer?.email} id={id} to={`transactions?customerId=${encodeURIComponent(id)}`} />
);
