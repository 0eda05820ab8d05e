// Which hosts are this machine's own: where plain HTTP and an open listener are safe.

/** 127.0.0.0/8, localhost and ::1, as URL.hostname writes them. */
export function isLoopbackHost(hostname: string): boolean {
  const h = hostname.toLowerCase();
  if (h === 'localhost' || h === '[::1]' || h === '::1') return true;
  const m = /^127\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(h);
  return m?.slice(1).every((part) => Number(part) <= 255) === true;
}
