/**
 * The sacred sites: banking and identity-provider sign-in hosts that Ghostlight never touches,
 * whatever a policy says and in observe mode too. A policy's `"sacred"` list adds to these; none
 * can remove one. Each entry covers its domain and every subdomain.
 *
 * @module
 */

/**
 * The built-in list, documented in the README. Sign-in hosts of the large identity providers
 * (a session there opens every site that trusts it) and the domains of large banks and payment
 * services. Providers whose sign-in is a path on a site used for much else (a social network's
 * `/login`) are not listed: a host list cannot name a path, and refusing the whole site would
 * make the list something people switch off.
 */
export const BUILT_IN_SACRED: readonly string[] = [
  // Identity providers' sign-in.
  "accounts.google.com",
  "login.microsoftonline.com",
  "login.live.com",
  "account.live.com",
  "appleid.apple.com",
  "idmsa.apple.com",
  "login.yahoo.com",
  "auth0.com",
  "okta.com",
  "oktapreview.com",
  "onelogin.com",
  "login.gov",
  "id.me",
  // Payments.
  "paypal.com",
  "stripe.com",
  "wise.com",
  "revolut.com",
  // Banks.
  "chase.com",
  "bankofamerica.com",
  "wellsfargo.com",
  "citi.com",
  "capitalone.com",
  "usbank.com",
  "schwab.com",
  "fidelity.com",
  "vanguard.com",
  "hsbc.com",
  "hsbc.co.uk",
  "barclays.co.uk",
  "lloydsbank.com",
  "natwest.com",
  "santander.com",
  "ing.com",
  "bnpparibas.com",
  "deutsche-bank.de",
  "monzo.com",
  "n26.com",
];
