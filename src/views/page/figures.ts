// How figures are written on a page: always the tool result's own strings. A quantity loses only the
// zeros the service pads it with (2.500000 is 2.5); an amount is shown as it came.

export const shortQuantity = (quantity: string): string => (quantity.includes('.') ? quantity.replace(/\.?0+$/, '') : quantity);

export const withCurrency = (currency: string, amount: string): string => `${currency} ${amount}`;

/**
 * A bar's length. The chart library places bars by JS numbers, so only pixels come of this; every figure the
 * page writes (labels, tables, tooltips) is the exact string.
 */
export const barLength = (amount: string): number => Number(amount);
