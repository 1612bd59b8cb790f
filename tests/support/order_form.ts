/**
 * The order form fixture (`tests/fixtures/order.html`): what its 15 fields are given, by the
 * labels a user sees, and what its framework state then sends to the server. The workflow test
 * checks form_fill with it; the bench times the same journey field by field and in one call.
 *
 * @module
 */

/** What the order form's fields get, by label. */
export const ORDER_FIELDS: Record<string, string | boolean | number> = {
  "First name": "Ada",
  "Last name": "Lovelace",
  "Email": "ada@example.com",
  "Phone": "+44 20 7946 0000",
  "Company": "Analytical Engines",
  "Street address": "12 St James's Square",
  "City": "London",
  "Postal code": "SW1Y 4JH",
  "Country": "Ireland",
  "Delivery": "Express",
  "Gift wrap": true,
  "Notes for the courier": "Ring twice",
  "Quantity": 3,
  "Preferred date": "2026-08-01",
  "Subscribe to the newsletter": true,
};

/** What the page's state holds after it, as the server receives it. */
export const ORDER_RECEIVED: Record<string, string | boolean> = {
  firstName: "Ada",
  lastName: "Lovelace",
  email: "ada@example.com",
  phone: "+44 20 7946 0000",
  company: "Analytical Engines",
  street: "12 St James's Square",
  city: "London",
  postalCode: "SW1Y 4JH",
  country: "ie",
  delivery: "express",
  giftWrap: true,
  notes: "Ring twice",
  quantity: "3",
  date: "2026-08-01",
  newsletter: true,
};
