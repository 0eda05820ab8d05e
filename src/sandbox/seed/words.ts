// Word lists the sample books are made from.

export const FIRST_NAMES = ['Aroha', 'Ben', 'Chloe', 'Daniel', 'Emma', 'Finn', 'Grace', 'Hemi', 'Isla', 'Jack', 'Kiri', 'Liam', 'Mia', 'Noah', 'Olivia', 'Priya', 'Quinn', 'Ruby', 'Sam', 'Tane', 'Una', 'Wiremu', 'Xavier', 'Zoe'];
export const LAST_NAMES = ['Anderson', 'Brown', 'Chen', 'Davies', 'Edwards', 'Fletcher', 'Gray', 'Harris', 'Ngata', 'Jones', 'King', 'Lee', 'Martin', 'Nguyen', 'Parata', 'Patel', 'Robinson', 'Singh', 'Smith', 'Taylor', 'Walker', 'Wilson', 'Young'];
export const COMPANY_WORDS = ['Kauri', 'Pohutukawa', 'Summit', 'Harbour', 'Tasman', 'Southern Cross', 'Rangitoto', 'Silver Fern', 'Coastal', 'Ridgeline', 'Kiwi', 'Waitemata', 'Greenstone', 'Alpine', 'Riverbank', 'Totara', 'Matai', 'Tui', 'Bellbird', 'Ironsand'];
export const COMPANY_KINDS = ['Builders', 'Cafe', 'Joinery', 'Electrical', 'Plumbing', 'Landscapes', 'Motors', 'Design', 'Bakery', 'Consulting', 'Dental', 'Logistics', 'Farms', 'Brewing', 'Print'];
export const COMPANY_SUFFIXES = ['Ltd', 'Limited', 'Co', 'Group', 'Ltd'];
export const CITIES: [string, string, string][] = [
  ['Auckland', 'Auckland', '10'],
  ['Wellington', 'Wellington', '60'],
  ['Christchurch', 'Canterbury', '80'],
  ['Hamilton', 'Waikato', '32'],
  ['Tauranga', 'Bay of Plenty', '31'],
  ['Dunedin', 'Otago', '90'],
  ['Napier', "Hawke's Bay", '41'],
  ['Nelson', 'Nelson', '70'],
  ['Palmerston North', 'Manawatu-Whanganui', '44'],
  ['Queenstown', 'Otago', '93'],
];
export const STREETS = ['Queen Street', 'Victoria Street', 'High Street', 'Ponsonby Road', 'Cuba Street', 'Colombo Street', 'Devonport Road', 'Tay Street', 'George Street', 'Marine Parade', 'Lambton Quay', 'Karangahape Road'];
export const PRODUCT_ADJECTIVES = ['Blue', 'Red', 'Green', 'Heavy-duty', 'Compact', 'Premium', 'Stainless', 'Cedar', 'Galvanised', 'Eco', 'Large', 'Small'];
export const PRODUCT_NOUNS = ['Widget', 'Bracket', 'Hinge', 'Timber Post', 'Paint Tin 4L', 'Drill Bit Set', 'Garden Hose', 'Cable Reel', 'Coffee Beans 1kg', 'Tool Box', 'Work Gloves', 'Safety Glasses', 'LED Lamp', 'Fence Paling', 'Deck Screw Box'];
export const SERVICES = ['Installation (per hour)', 'Consulting (per hour)', 'Site visit', 'Delivery', 'Design review', 'Annual maintenance', 'Training session', 'Emergency call-out'];
export const FREE_TEXT_LINES = ['Labour', 'Travel time', 'Materials (sundry)', 'Disposal fee', 'Project management', 'Custom fabrication', 'After-hours surcharge'];
export const NOTES = ['Prefers email invoices', 'Account on 30-day terms', 'Call before delivering', 'Gate code 4411', 'Key contact is the office manager'];
