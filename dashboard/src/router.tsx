/** A small router over the History API, under the app's base (`/dashboard/`). */
import { useEffect, useState, type AnchorHTMLAttributes, type MouseEvent } from 'react';

const BASE = import.meta.env.BASE_URL; // '/dashboard/'

export const pathOf = () => {
  const p = window.location.pathname;
  return p.startsWith(BASE) ? p.slice(BASE.length).replace(/\/$/, '') : '';
};

export function navigate(to: string) {
  window.history.pushState(null, '', BASE + to);
  window.dispatchEvent(new PopStateEvent('popstate'));
}

export function usePath(): string {
  const [path, setPath] = useState(pathOf);
  useEffect(() => {
    const on = () => setPath(pathOf());
    window.addEventListener('popstate', on);
    return () => window.removeEventListener('popstate', on);
  }, []);
  return path;
}

export function Link({ to, ...rest }: { to: string } & AnchorHTMLAttributes<HTMLAnchorElement>) {
  const onClick = (e: MouseEvent<HTMLAnchorElement>) => {
    if (e.metaKey || e.ctrlKey || e.shiftKey || e.button !== 0) return;
    e.preventDefault();
    navigate(to);
  };
  return <a href={BASE + to} onClick={onClick} {...rest} />;
}

/** The query string's parameters (filters and the page cursor live in the URL: DESIGN 9.7). */
export function useSearchParams(): [URLSearchParams, (next: Record<string, string | undefined>) => void] {
  const [search, setSearch] = useState(() => window.location.search);
  useEffect(() => {
    const on = () => setSearch(window.location.search);
    window.addEventListener('popstate', on);
    return () => window.removeEventListener('popstate', on);
  }, []);
  const set = (next: Record<string, string | undefined>) => {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(next)) if (v) q.set(k, v);
    const text = q.toString();
    window.history.pushState(null, '', `${window.location.pathname}${text ? `?${text}` : ''}`);
    window.dispatchEvent(new PopStateEvent('popstate'));
  };
  return [new URLSearchParams(search), set];
}
