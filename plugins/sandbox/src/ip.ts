import { BlockList, isIP } from 'node:net';

// Address ranges that are not the public internet: loopback, private, link-local (cloud
// metadata lives at 169.254.169.254), carrier-grade NAT, documentation, multicast, reserved,
// and the IPv6 ranges that embed or translate IPv4 (NAT64, 6to4, Teredo).
const V4 = [
  '0.0.0.0/8', '10.0.0.0/8', '100.64.0.0/10', '127.0.0.0/8', '169.254.0.0/16', '172.16.0.0/12',
  '192.0.0.0/24', '192.0.2.0/24', '192.88.99.0/24', '192.168.0.0/16', '198.18.0.0/15',
  '198.51.100.0/24', '203.0.113.0/24', '224.0.0.0/4', '240.0.0.0/4',
];
const V6 = [
  '::/127', '64:ff9b::/96', '64:ff9b:1::/48', '100::/64', '2001::/32', '2001:db8::/32', '2002::/16',
  'fc00::/7', 'fe80::/10', 'fec0::/10', 'ff00::/8',
];

let blocked: BlockList | undefined;

function list(): BlockList {
  if (blocked) return blocked;
  blocked = new BlockList();
  for (const range of V4) { const [net, bits] = range.split('/'); blocked.addSubnet(net!, Number(bits), 'ipv4'); }
  for (const range of V6) { const [net, bits] = range.split('/'); blocked.addSubnet(net!, Number(bits), 'ipv6'); }
  return blocked;
}

/**
 * True for any address that is not a public unicast address. IPv4-mapped IPv6 addresses
 * (`::ffff:127.0.0.1`) are checked as the IPv4 address they carry.
 */
export function isNonPublicAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const family = isIP(bare);
  if (family === 0) return true;
  return list().check(bare, family === 4 ? 'ipv4' : 'ipv6');
}
