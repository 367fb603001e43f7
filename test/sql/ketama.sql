--
-- The ketama algorithm and its client variants, the ties rules, and the
-- Java hashes.  The proof against the real clients is the compatibility
-- suite (test/scripts/compat.sh); this one checks published facts and the
-- rules that decide single points.
--
SET client_encoding = 'UTF8';

-- Defaults: a ketama ring hashes its points with MD5 as '{node}-{i}' and
-- counts as libmemcached; a ring ring keeps xxh3_64 and '{node}#{i}'
SELECT chash_ring_create('defaults_k', algorithm => 'ketama');
SELECT chash_ring_create('defaults_r', hash => NULL, vnode_name => NULL);
SELECT ring, algorithm, hash, key_hash, vnodes, vnode_name, vnode_first, ketama_variant, ties
FROM chash.rings WHERE ring LIKE 'defaults%' ORDER BY ring;
SELECT chash_ring_drop('defaults_k'), chash_ring_drop('defaults_r');

--
-- libmemcached's published fixture (test/fixtures/ketama.hpp of
-- libmemcached 1.1, used by its test memcached_ketama_compat): eight
-- weighted servers on port 11211, and 99 keys with their hash, the
-- continuum point they land on, and their server.
--
CREATE TABLE fixture_servers (ordinal int, node text, weight int);
INSERT INTO fixture_servers VALUES
	(1, '10.0.1.1', 600), (2, '10.0.1.2', 300), (3, '10.0.1.3', 200),
	(4, '10.0.1.4', 350), (5, '10.0.1.5', 1000), (6, '10.0.1.6', 800),
	(7, '10.0.1.7', 950), (8, '10.0.1.8', 100);
CREATE TABLE fixture_keys (key text, hash bigint, point bigint, server text);
INSERT INTO fixture_keys VALUES
	('SVa_]_V41)', 443691461, 445379617, '10.0.1.7'),
	('*/Z;?V(.\8', 1422915503, 1428303028, '10.0.1.1'),
	('30C1*Z*S/_', 1473165754, 1480075959, '10.0.1.2'),
	('ERR:EC58G>', 2148406511, 2168579133, '10.0.1.7'),
	('1I=cTMNTKF', 2882686667, 2885206587, '10.0.1.5'),
	(']VG<`I*Z8)', 1103544263, 1104827657, '10.0.1.5'),
	('UUTC`-V159', 3716288206, 3727224240, '10.0.1.5'),
	('@7RU6C6T+Z', 3862737685, 3871917949, '10.0.1.5'),
	('/XLN0@+36;', 1623269830, 1627683651, '10.0.1.1'),
	('4(`X;\V.^c', 373546328, 383925769, '10.0.1.1'),
	('726bW=9*a4', 4213440020, 4213950705, '10.0.1.7'),
	('\`)<B)UE,c', 951096736, 955226069, '10.0.1.1'),
	('P1[Ma3=K1/', 1989324036, 1994028240, '10.0.1.8'),
	('C89I.-V?cT', 1604239957, 1606398093, '10.0.1.8'),
	('D[HE+cFXDK', 2117036136, 2117124014, '10.0.1.3'),
	('P1L?NAB[)K', 2129972569, 2132542634, '10.0.1.1'),
	('cDT0)Z5P6,', 176485284, 178675413, '10.0.1.5'),
	('@JW`+[WAO8', 2720940826, 2743975456, '10.0.1.5'),
	('\39DKW^)N_', 3548879868, 3550704865, '10.0.1.3'),
	('EM75N0+[X1', 1558531507, 1559308507, '10.0.1.4'),
	('`,SS]NBP,b', 1883545960, 1884847278, '10.0.1.1'),
	('XX1a9LT+F?', 653487707, 656410408, '10.0.1.5'),
	('Zc\-,F-c6V', 1160802451, 1171575728, '10.0.1.5'),
	('1*RTMC7,03', 1602398012, 1606398093, '10.0.1.8'),
	('*Xc+V0P>32', 536016577, 539988520, '10.0.1.7'),
	('U))Fb-(`,.', 4128682289, 4136854163, '10.0.1.7'),
	('R-08RNTaRT', 3718170086, 3727224240, '10.0.1.5'),
	('(LHcO203I3', 1007779411, 1014643570, '10.0.1.5'),
	('=256P+;Qc8', 3976201210, 3976304873, '10.0.1.5'),
	('OI5XZ_BBT(', 2155922164, 2168579133, '10.0.1.7'),
	('2TLRL/UL;:', 1086800909, 1095659802, '10.0.1.7'),
	('WHD\O1`ZRW', 3087923411, 3095471560, '10.0.1.5'),
	('.=54)_c;=T', 2497691631, 2502731301, '10.0.1.1'),
	(';G<W-XWZ@b', 2888169733, 2888728739, '10.0.1.5'),
	('(,>E`)FT\4', 580747448, 581063326, '10.0.1.2'),
	('HZAU*;P*N]', 2564670474, 2565697267, '10.0.1.7'),
	('NZ@ZE=O84_', 533335275, 539988520, '10.0.1.7'),
	('6,cEI`F_P>', 3972869246, 3974773167, '10.0.1.6'),
	('c,5AQ/T5)6', 2835605783, 2847870057, '10.0.1.8'),
	('.O,>>BT)RX', 3857978174, 3871917949, '10.0.1.5'),
	('XY\X::LX50', 1749241099, 1752196488, '10.0.1.6'),
	('+550F^/.01', 3781824099, 3783248219, '10.0.1.6'),
	('<.X9E2S5+9', 3232479481, 3234387706, '10.0.1.7'),
	(']\.UH8_0a1', 2419699252, 2423002920, '10.0.1.4'),
	('8(6=(T0/Z0', 728266737, 729026070, '10.0.1.7'),
	('8*6a;Sc*X+', 4223431086, 4230156966, '10.0.1.2'),
	('<QW:;3K6;H', 2731158143, 2743975456, '10.0.1.5'),
	('7C@EY@-Y?_', 760770733, 761576669, '10.0.1.5'),
	('aPb3E1WD4K', 2500489218, 2502731301, '10.0.1.1'),
	('?@12R<=1BH', 1494795329, 1502505505, '10.0.1.8'),
	('QR(a+Q=1FU', 3238535074, 3238996435, '10.0.1.6'),
	('`C9^FV,960', 2628553463, 2628733766, '10.0.1.6'),
	('UNHVP..^8H', 977096483, 977319837, '10.0.1.4'),
	(':Y.2W2[(35', 2777083668, 2784182515, '10.0.1.7'),
	('M/HV^_HZ4O', 3623390946, 3624445007, '10.0.1.7'),
	('ZY16KQ<ICD', 1831153193, 1838563516, '10.0.1.4'),
	('bV2,`a.PY9', 1962228869, 1962648654, '10.0.1.1'),
	('U;9:-+5N]9', 269504649, 277560877, '10.0.1.1'),
	('1S/:aJ[1(;', 578069729, 581063326, '10.0.1.2'),
	('Nb-X^]M)I:', 330865696, 331009896, '10.0.1.6'),
	('2;M;ES>J5/', 2776949824, 2784182515, '10.0.1.7'),
	('[>RZHG97Q9', 71954686, 72034069, '10.0.1.6'),
	('J3/G[)9<^Z', 2799896459, 2805183696, '10.0.1.7'),
	('N-)88>[O`,', 50404102, 51792557, '10.0.1.5'),
	('NP:=FR\OaA', 3837333776, 3837792034, '10.0.1.7'),
	('`@L+W;a,O[', 1512157148, 1522285852, '10.0.1.6'),
	('W2`P:-+1T[', 2945171975, 2946196424, '10.0.1.5'),
	('-6G7K^YDIN', 3168617340, 3170513015, '10.0.1.7'),
	('U>*>9ZI6V5', 668514946, 674097631, '10.0.1.6'),
	('.I?^6Ic9RK', 938419020, 942832691, '10.0.1.6'),
	('0OZH^9BKM[', 3682518606, 3686781297, '10.0.1.8'),
	('5?50UGZ:ML', 868610882, 869425986, '10.0.1.5'),
	('?K2NF@3=IU', 381218851, 383925769, '10.0.1.1'),
	('YI@G-2X?UB', 3688706179, 3693197681, '10.0.1.5'),
	('7cY</BSaL=', 3976870223, 3978903843, '10.0.1.6'),
	('A(`KF:[RH8', 3292979676, 3294849139, '10.0.1.6'),
	(';=ZT\W^P+H', 1401102653, 1416290674, '10.0.1.4'),
	('b2?WFF56;R', 480494704, 486971192, '10.0.1.4'),
	('CTR74,J+N.', 137446045, 146633907, '10.0.1.8'),
	('<b;*R+QDST', 1304985302, 1308223778, '10.0.1.5'),
	('\R^7=9UCG`', 126218373, 129199837, '10.0.1.5'),
	('1bQS5]WOXB', 1853470245, 1855329369, '10.0.1.4'),
	('M(@X^b[L:K', 3019630308, 3022260113, '10.0.1.1'),
	('431cBF8,YO', 1679726993, 1685224295, '10.0.1.7'),
	('(bEIQJ:E./', 2922607787, 2925521819, '10.0.1.6'),
	('WS/3H*)7F;', 419488232, 422140585, '10.0.1.5'),
	('ZJF[Ia6Q)+', 3960568056, 3962489998, '10.0.1.7'),
	('<]*QCK8U,>', 2590140172, 2598117636, '10.0.1.7'),
	('\[a\^=V_M0', 689410119, 698690782, '10.0.1.6'),
	('7;RM+8J9YC', 1530175299, 1531107082, '10.0.1.7'),
	('4*=.SPR[AV', 3928582722, 3928853792, '10.0.1.1'),
	('-2F+^88P4U', 3023552752, 3025823613, '10.0.1.7'),
	('X;-F`(N?9D', 570465234, 572485994, '10.0.1.7'),
	('R=F_D-K2a]', 1287750228, 1290935562, '10.0.1.7'),
	('X*+2aaC.EG', 3200948713, 3201088518, '10.0.1.5'),
	('[1ZXONX2]a', 4108881567, 4109865744, '10.0.1.4'),
	('FL;\GWacaV', 458449508, 467374054, '10.0.1.4'),
	('\MQ_XNT7L-', 1259349383, 1259509450, '10.0.1.7'),
	('VD6D0]ba_\', 3842502950, 3842588691, '10.0.1.1');
SELECT chash_ring_create('memcached', algorithm => 'ketama', ketama_variant => 'libmemcached');
SELECT chash_node_add('memcached', node, weight) FROM fixture_servers ORDER BY ordinal;
-- points per server: floor(weight share x 40 x 8) digests of four points
SELECT n.node, n.weight, n.points, n.ordinal > 0 AS has_ordinal
FROM chash.nodes n WHERE ring = 'memcached' ORDER BY n.ordinal;
-- every key: its hash, the point that owns it, and its server
SELECT count(*) AS keys,
	   count(*) FILTER (WHERE chash_position('memcached', key) = hash) AS hash_agrees,
	   count(*) FILTER (WHERE (SELECT min(p.point) FROM chash_points('memcached') p
							   WHERE p.point >= chash_position('memcached', key)) = point) AS point_agrees,
	   count(*) FILTER (WHERE chash_lookup('memcached', key) = server) AS server_agrees
FROM fixture_keys;
-- 'VDEAAAAA' hashes to 0xfffcd1b5, after the last point: it wraps to the first
SELECT chash_position('memcached', 'VDEAAAAA') = x'fffcd1b5'::bigint AS hash_is_fffcd1b5,
	   chash_position('memcached', 'VDEAAAAA') > (SELECT max(point) FROM chash_points('memcached')) AS after_last_point,
	   chash_lookup('memcached', 'VDEAAAAA') = (SELECT node FROM chash_points('memcached') ORDER BY point LIMIT 1) AS owned_by_first_point;
-- the names of the points: word x of the MD5 digest of '<node>-<i>'
SELECT node, vnode FROM chash_points('memcached') WHERE vnode LIKE '10.0.1.8-0[%' ORDER BY vnode;
-- A server marked down is out, as libmemcached's auto-ejected hosts are
-- (its test auto_eject_hosts): the others share all 320 digests' worth.
SELECT chash_node_set('memcached', '10.0.1.3', state => 'down');
SELECT count(*) FILTER (WHERE chash_lookup('memcached', key) = '10.0.1.3') AS keys_on_down_server,
	   (SELECT sum(points) FROM chash.nodes WHERE ring = 'memcached') AS points
FROM fixture_keys;
SELECT chash_node_set('memcached', '10.0.1.3', state => 'active');
SELECT count(*) FILTER (WHERE chash_lookup('memcached', key) = server) AS server_agrees_again
FROM fixture_keys;

-- The same fixture for spymemcached's names, '/<host>:<port>-<i>', which
-- libmemcached reproduces as MEMCACHED_DISTRIBUTION_CONSISTENT_KETAMA_SPY:
-- a template does it
CREATE TABLE fixture_spy_keys (key text, hash bigint, point bigint, server text);
INSERT INTO fixture_spy_keys VALUES
	('SVa_]_V41)', 443691461, 445379617, '10.0.1.2'),
	('*/Z;?V(.\8', 1422915503, 1428303028, '10.0.1.4'),
	('30C1*Z*S/_', 1473165754, 1480075959, '10.0.1.2'),
	('ERR:EC58G>', 2148406511, 2168579133, '10.0.1.7'),
	('1I=cTMNTKF', 2882686667, 2885206587, '10.0.1.4'),
	(']VG<`I*Z8)', 1103544263, 1104827657, '10.0.1.5'),
	('UUTC`-V159', 3716288206, 3727224240, '10.0.1.7'),
	('@7RU6C6T+Z', 3862737685, 3871917949, '10.0.1.6'),
	('/XLN0@+36;', 1623269830, 1627683651, '10.0.1.7'),
	('4(`X;\V.^c', 373546328, 383925769, '10.0.1.6'),
	('726bW=9*a4', 4213440020, 4213950705, '10.0.1.3'),
	('\`)<B)UE,c', 951096736, 955226069, '10.0.1.8'),
	('P1[Ma3=K1/', 1989324036, 1994028240, '10.0.1.1'),
	('C89I.-V?cT', 1604239957, 1606398093, '10.0.1.5'),
	('D[HE+cFXDK', 2117036136, 2117124014, '10.0.1.5'),
	('P1L?NAB[)K', 2129972569, 2132542634, '10.0.1.7'),
	('cDT0)Z5P6,', 176485284, 178675413, '10.0.1.1'),
	('@JW`+[WAO8', 2720940826, 2743975456, '10.0.1.2'),
	('\39DKW^)N_', 3548879868, 3550704865, '10.0.1.6'),
	('EM75N0+[X1', 1558531507, 1559308507, '10.0.1.5'),
	('`,SS]NBP,b', 1883545960, 1884847278, '10.0.1.1'),
	('XX1a9LT+F?', 653487707, 656410408, '10.0.1.6'),
	('Zc\-,F-c6V', 1160802451, 1171575728, '10.0.1.6'),
	('1*RTMC7,03', 1602398012, 1606398093, '10.0.1.5'),
	('*Xc+V0P>32', 536016577, 539988520, '10.0.1.7'),
	('U))Fb-(`,.', 4128682289, 4136854163, '10.0.1.7'),
	('R-08RNTaRT', 3718170086, 3727224240, '10.0.1.5'),
	('(LHcO203I3', 1007779411, 1014643570, '10.0.1.1'),
	('=256P+;Qc8', 3976201210, 3976304873, '10.0.1.3'),
	('OI5XZ_BBT(', 2155922164, 2168579133, '10.0.1.5'),
	('2TLRL/UL;:', 1086800909, 1095659802, '10.0.1.2'),
	('WHD\O1`ZRW', 3087923411, 3095471560, '10.0.1.1'),
	('.=54)_c;=T', 2497691631, 2502731301, '10.0.1.6'),
	(';G<W-XWZ@b', 2888169733, 2888728739, '10.0.1.7'),
	('(,>E`)FT\4', 580747448, 581063326, '10.0.1.5'),
	('HZAU*;P*N]', 2564670474, 2565697267, '10.0.1.1'),
	('NZ@ZE=O84_', 533335275, 539988520, '10.0.1.7'),
	('6,cEI`F_P>', 3972869246, 3974773167, '10.0.1.3'),
	('c,5AQ/T5)6', 2835605783, 2847870057, '10.0.1.7'),
	('.O,>>BT)RX', 3857978174, 3871917949, '10.0.1.7'),
	('XY\X::LX50', 1749241099, 1752196488, '10.0.1.7'),
	('+550F^/.01', 3781824099, 3783248219, '10.0.1.2'),
	('<.X9E2S5+9', 3232479481, 3234387706, '10.0.1.7'),
	(']\.UH8_0a1', 2419699252, 2423002920, '10.0.1.6'),
	('8(6=(T0/Z0', 728266737, 729026070, '10.0.1.6'),
	('8*6a;Sc*X+', 4223431086, 4230156966, '10.0.1.5'),
	('<QW:;3K6;H', 2731158143, 2743975456, '10.0.1.7'),
	('7C@EY@-Y?_', 760770733, 761576669, '10.0.1.5'),
	('aPb3E1WD4K', 2500489218, 2502731301, '10.0.1.2'),
	('?@12R<=1BH', 1494795329, 1502505505, '10.0.1.1'),
	('QR(a+Q=1FU', 3238535074, 3238996435, '10.0.1.5'),
	('`C9^FV,960', 2628553463, 2628733766, '10.0.1.3'),
	('UNHVP..^8H', 977096483, 977319837, '10.0.1.6'),
	(':Y.2W2[(35', 2777083668, 2784182515, '10.0.1.6'),
	('M/HV^_HZ4O', 3623390946, 3624445007, '10.0.1.4'),
	('ZY16KQ<ICD', 1831153193, 1838563516, '10.0.1.7'),
	('bV2,`a.PY9', 1962228869, 1962648654, '10.0.1.7'),
	('U;9:-+5N]9', 269504649, 277560877, '10.0.1.2'),
	('1S/:aJ[1(;', 578069729, 581063326, '10.0.1.5'),
	('Nb-X^]M)I:', 330865696, 331009896, '10.0.1.3'),
	('2;M;ES>J5/', 2776949824, 2784182515, '10.0.1.6'),
	('[>RZHG97Q9', 71954686, 72034069, '10.0.1.4'),
	('J3/G[)9<^Z', 2799896459, 2805183696, '10.0.1.6'),
	('N-)88>[O`,', 50404102, 51792557, '10.0.1.2'),
	('NP:=FR\OaA', 3837333776, 3837792034, '10.0.1.7'),
	('`@L+W;a,O[', 1512157148, 1522285852, '10.0.1.5'),
	('W2`P:-+1T[', 2945171975, 2946196424, '10.0.1.7'),
	('-6G7K^YDIN', 3168617340, 3170513015, '10.0.1.5'),
	('U>*>9ZI6V5', 668514946, 674097631, '10.0.1.5'),
	('.I?^6Ic9RK', 938419020, 942832691, '10.0.1.6'),
	('0OZH^9BKM[', 3682518606, 3686781297, '10.0.1.2'),
	('5?50UGZ:ML', 868610882, 869425986, '10.0.1.6'),
	('?K2NF@3=IU', 381218851, 383925769, '10.0.1.6'),
	('YI@G-2X?UB', 3688706179, 3693197681, '10.0.1.6'),
	('7cY</BSaL=', 3976870223, 3978903843, '10.0.1.7'),
	('A(`KF:[RH8', 3292979676, 3294849139, '10.0.1.6'),
	(';=ZT\W^P+H', 1401102653, 1416290674, '10.0.1.6'),
	('b2?WFF56;R', 480494704, 486971192, '10.0.1.7'),
	('CTR74,J+N.', 137446045, 146633907, '10.0.1.7'),
	('<b;*R+QDST', 1304985302, 1308223778, '10.0.1.5'),
	('\R^7=9UCG`', 126218373, 129199837, '10.0.1.6'),
	('1bQS5]WOXB', 1853470245, 1855329369, '10.0.1.7'),
	('M(@X^b[L:K', 3019630308, 3022260113, '10.0.1.4'),
	('431cBF8,YO', 1679726993, 1685224295, '10.0.1.1'),
	('(bEIQJ:E./', 2922607787, 2925521819, '10.0.1.7'),
	('WS/3H*)7F;', 419488232, 422140585, '10.0.1.3'),
	('ZJF[Ia6Q)+', 3960568056, 3962489998, '10.0.1.5'),
	('<]*QCK8U,>', 2590140172, 2598117636, '10.0.1.5'),
	('\[a\^=V_M0', 689410119, 698690782, '10.0.1.7'),
	('7;RM+8J9YC', 1530175299, 1531107082, '10.0.1.7'),
	('4*=.SPR[AV', 3928582722, 3928853792, '10.0.1.3'),
	('-2F+^88P4U', 3023552752, 3025823613, '10.0.1.7'),
	('X;-F`(N?9D', 570465234, 572485994, '10.0.1.5'),
	('R=F_D-K2a]', 1287750228, 1290935562, '10.0.1.1'),
	('X*+2aaC.EG', 3200948713, 3201088518, '10.0.1.3'),
	('[1ZXONX2]a', 4108881567, 4109865744, '10.0.1.7'),
	('FL;\GWacaV', 458449508, 467374054, '10.0.1.7'),
	('\MQ_XNT7L-', 1259349383, 1259509450, '10.0.1.5'),
	('VD6D0]ba_\', 3842502950, 3842588691, '10.0.1.7');
SELECT chash_ring_create('spy', algorithm => 'ketama', vnode_name => '/{node}:11211-{i}');
SELECT chash_node_add('spy', node, weight) FROM fixture_servers ORDER BY ordinal;
SELECT count(*) AS keys,
	   count(*) FILTER (WHERE chash_position('spy', key) = hash) AS hash_agrees,
	   count(*) FILTER (WHERE chash_lookup('spy', key) = server) AS server_agrees
FROM fixture_spy_keys;

--
-- The float rounding of each client: equal weights, and the cluster sizes
-- where some clients give a node 39 digests (156 points) instead of 40.
-- uhashring counts in integers and always gives 40.
--
CREATE TABLE sizes (n int);
INSERT INTO sizes VALUES (7), (14), (25), (28), (47), (61), (100), (122), (160), (237);
CREATE TABLE variants (ordinal int, variant text);
INSERT INTO variants VALUES (1, 'libmemcached'), (2, 'libketama'), (3, 'twemproxy'), (4, 'uhashring'), (5, 'node');
SELECT chash_ring_create(format('%s_%s', variant, n), algorithm => 'ketama', ketama_variant => variant)
FROM variants, sizes;
INSERT INTO chash.node_config (ring, node)
	SELECT format('%s_%s', variant, n), format('10.0.%s.%s:11211', i / 256, i % 256)
	FROM variants, sizes, generate_series(1, n) i;
SELECT v.variant,
	   string_agg(format('%s:%s', s.n,
						 (SELECT string_agg(DISTINCT points::text, ',') FROM chash.nodes
						  WHERE ring = format('%s_%s', v.variant, s.n))), ' ' ORDER BY s.n) AS points_per_node
FROM variants v, sizes s GROUP BY v.ordinal, v.variant ORDER BY v.ordinal;
SELECT count(chash_ring_drop(format('%s_%s', variant, n))) AS rings_dropped FROM variants, sizes;

-- Weights: shares of the whole, so adding a server changes every server's
-- count a little (uhashring: (40 x n x weight) // total weight digests)
SELECT chash_ring_create('w', algorithm => 'ketama', ketama_variant => 'uhashring');
SELECT chash_node_add('w', 'a', 1), chash_node_add('w', 'b', 2), chash_node_add('w', 'c', 4);
SELECT node, weight, points, points / 4 AS digests FROM chash.nodes WHERE ring = 'w' ORDER BY ordinal;
SELECT chash_node_add('w', 'd', 3);
SELECT node, weight, points, points / 4 AS digests FROM chash.nodes WHERE ring = 'w' ORDER BY ordinal;
SELECT chash_ring_drop('w');

-- A node whose share is too small gets no points, as in the clients; it is
-- still active, but owns no key and is in no preference list
SELECT chash_ring_create('skewed', algorithm => 'ketama');
SELECT chash_node_add('skewed', 'big', 1000), chash_node_add('skewed', 'tiny', 1);
SELECT node, state, points FROM chash.nodes WHERE ring = 'skewed' ORDER BY ordinal;
SELECT nodes, active_nodes, points FROM chash.rings WHERE ring = 'skewed';
SELECT array_agg(DISTINCT chash_lookup('skewed', k)) AS owners,
	   array_agg(DISTINCT chash_lookup_n('skewed', k, 1)) AS preference_lists
FROM generate_series(1, 1000) k;
SELECT chash_lookup_n('skewed', 'k', 2);
SELECT chash_ring_drop('skewed');

-- A node's own vnodes: npm hashring takes them as the node's points (as
-- vnodes / 4 digests), unless they equal the ring's; uhashring puts them
-- in its formula in place of the ring's
SELECT chash_ring_create('own_node', algorithm => 'ketama', ketama_variant => 'node');
SELECT chash_ring_create('own_uhr', algorithm => 'ketama', ketama_variant => 'uhashring');
SELECT chash_node_add(r, 'a', 1, vnodes => 40), chash_node_add(r, 'b', 3, vnodes => 160),
	   chash_node_add(r, 'c', 1)
FROM unnest(ARRAY['own_node', 'own_uhr']) r;
SELECT ring, node, weight, vnodes, points FROM chash.nodes
WHERE ring LIKE 'own%' ORDER BY ring, ordinal;
SELECT chash_ring_drop('own_node'), chash_ring_drop('own_uhr');

--
-- Keys on a point.  Key '<node>-<i>' hashes (md5, first word) to word 0 of
-- that name's digest: exactly a point.  libmemcached's owner is the point
-- itself; uhashring's (bisect_right) is the next point.
--
SELECT chash_ring_create(v, algorithm => 'ketama', ketama_variant => v)
FROM unnest(ARRAY['libmemcached', 'uhashring']) v;
SELECT chash_node_add(v, n) FROM unnest(ARRAY['libmemcached', 'uhashring']) v,
	unnest(ARRAY['a', 'b', 'c']) n;
CREATE TABLE on_point AS
	SELECT regexp_replace(vnode, '\[0\]$', '') AS key, node AS point_node, next_node
	FROM (SELECT vnode, node,
				 lead(node, 1, (SELECT node FROM chash_points('libmemcached') ORDER BY point LIMIT 1))
					 OVER (ORDER BY point) AS next_node
		  FROM chash_points('libmemcached')) p
	WHERE vnode LIKE '%[0]';
SELECT count(*) AS keys_on_points,
	   count(*) FILTER (WHERE chash_position('libmemcached', key) IN
							  (SELECT point FROM chash_points('libmemcached'))) AS really_on_points,
	   count(*) FILTER (WHERE chash_lookup('libmemcached', key) = point_node) AS libmemcached_takes_the_point,
	   count(*) FILTER (WHERE chash_lookup('uhashring', key) = next_node) AS uhashring_takes_the_next
FROM on_point;
SELECT chash_ring_drop('libmemcached'), chash_ring_drop('uhashring');

--
-- Ties.  'Aa' and 'BB' have the same Java hashCode, and so do 'Aa#<i>'
-- and 'BB#<i>': with java_hashcode every point of the two nodes is shared.
-- ties => name gives them to the first name, first to the node added first,
-- last (Java's TreeMap.put) to the node added last.
--
SELECT chash_ring_create(t, hash => 'java_hashcode', vnodes => 10, ties => t)
FROM unnest(ARRAY['name', 'first', 'last']) t;
SELECT chash_node_add(t, n) FROM unnest(ARRAY['name', 'first', 'last']) t,
	unnest(ARRAY['BB', 'Aa']) n;
SELECT count(DISTINCT point) AS positions, count(*) AS points FROM chash_points('name');
SELECT t AS ties, array_agg(DISTINCT chash_lookup(t, k)) AS owners
FROM unnest(ARRAY['name', 'first', 'last']) t, generate_series(1, 200) k
GROUP BY t ORDER BY t;
-- reordering the server list changes the winner
UPDATE chash.node_config SET ordinal = -ordinal WHERE ring IN ('first', 'last');
SELECT t AS ties, array_agg(DISTINCT chash_lookup(t, k)) AS owners
FROM unnest(ARRAY['first', 'last']) t, generate_series(1, 200) k
GROUP BY t ORDER BY t;
SELECT chash_ring_drop(t) FROM unnest(ARRAY['name', 'first', 'last']) t;

-- Ketama ties: the first MD5 words of 't11335-0' and 't54349-0' are equal
-- (4108755223).  libmemcached gives the point to the server listed first,
-- uhashring to the one listed last; key 't11335-0' lands on it and keys
-- just before it go to it (uhashring: strictly after).
SELECT chash_ring_create(format('%s_%s', v, o), algorithm => 'ketama', ketama_variant => v)
FROM unnest(ARRAY['libmemcached', 'uhashring']) v, unnest(ARRAY['ab', 'ba']) o;
SELECT chash_node_add(format('%s_ab', v), n) FROM unnest(ARRAY['libmemcached', 'uhashring']) v,
	unnest(ARRAY['t11335', 't54349']) n;
SELECT chash_node_add(format('%s_ba', v), n) FROM unnest(ARRAY['libmemcached', 'uhashring']) v,
	unnest(ARRAY['t54349', 't11335']) n;
SELECT point, node, vnode FROM chash_points('libmemcached_ab') WHERE point = 4108755223;
SELECT point, node, vnode FROM chash_points('uhashring_ab') WHERE point = 4108755223;
SELECT chash_position('libmemcached_ab', 't11335-0') AS key_position;
CREATE TABLE before_tie AS
	SELECT 'k' || i AS key FROM generate_series(1, 200000) i
	WHERE chash_position('libmemcached_ab', 'k' || i) BETWEEN
		  (SELECT max(point) + 1 FROM chash_points('libmemcached_ab') WHERE point < 4108755223)
		  AND 4108755222;
SELECT r AS ring,
	   chash_lookup(r, 't11335-0') AS key_on_the_tie,
	   (SELECT array_agg(DISTINCT chash_lookup(r, key)) FROM before_tie) AS keys_before_it,
	   (SELECT count(*) FROM before_tie) > 0 AS some_keys_before_it
FROM unnest(ARRAY['libmemcached_ab', 'libmemcached_ba', 'uhashring_ab', 'uhashring_ba']) r
ORDER BY r;
SELECT chash_ring_drop(format('%s_%s', v, o))
FROM unnest(ARRAY['libmemcached', 'uhashring']) v, unnest(ARRAY['ab', 'ba']) o;

-- twemproxy sorts its servers by name length, then name, when it reads its
-- configuration: '10.30.2.19:11311' wins its shared point with
-- '10.30.1.209:11311' in either list order
SELECT chash_ring_create(o, algorithm => 'ketama', ketama_variant => 'twemproxy')
FROM unnest(ARRAY['twem_ab', 'twem_ba']) o;
SELECT chash_node_add('twem_ab', n) FROM unnest(ARRAY['10.30.1.209:11311', '10.30.2.19:11311']) n;
SELECT chash_node_add('twem_ba', n) FROM unnest(ARRAY['10.30.2.19:11311', '10.30.1.209:11311']) n;
CREATE TABLE twem_tie AS
	SELECT point FROM chash_points('twem_ab') GROUP BY point HAVING count(DISTINCT node) = 2;
SELECT count(*) AS shared_points FROM twem_tie;
CREATE TABLE before_twem_tie AS
	SELECT md5(i::text) AS key FROM generate_series(1, 200000) i, twem_tie t
	WHERE chash_position('twem_ab', md5(i::text)) BETWEEN
		  (SELECT max(point) + 1 FROM chash_points('twem_ab') WHERE point < t.point) AND t.point;
SELECT r AS ring, count(*) > 0 AS some_keys, array_agg(DISTINCT chash_lookup(r, key)) AS owners
FROM unnest(ARRAY['twem_ab', 'twem_ba']) r, before_twem_tie GROUP BY r ORDER BY r;
SELECT chash_ring_drop('twem_ab'), chash_ring_drop('twem_ba');

-- libmemcached hashes a server on its default port 11211 by its host alone:
-- nodes named '10.0.1.1:11211' route the fixture as '10.0.1.1' does
SELECT chash_ring_create('memcached_port', algorithm => 'ketama');
SELECT chash_node_add('memcached_port', node || ':11211', weight) FROM fixture_servers ORDER BY ordinal;
SELECT count(*) AS keys,
	   count(*) FILTER (WHERE chash_lookup('memcached_port', key) = server || ':11211') AS server_agrees
FROM fixture_keys;
SELECT node, vnode FROM chash_points('memcached_port') WHERE vnode LIKE '10.0.1.8-0[%' ORDER BY vnode;
SELECT chash_ring_drop('memcached_port');

--
-- The Java hashes (their vectors are in hash_functions).  Java's int and
-- long are signed; chash shows a 32-bit value unsigned, so
-- Integer.MIN_VALUE, the only negative value Math.abs leaves (and only
-- java_hashcode can give it: 'polygenelubricants'), is 2147483648.
--
-- a ring holding the MIN_VALUE point routes as Java's signed TreeMap does:
-- unsigned, the point is the last instead of the first, the same place on
-- the circle.  'jrpexur&&VN0' hashes to MIN_VALUE.
SELECT chash_hash('java_hashcode', 'jrpexur&&VN0') AS min_value_unsigned;
SELECT chash_ring_create('java', hash => 'java_hashcode', vnodes => 1, vnode_name => '{node}&&VN{i}', ties => 'last');
SELECT chash_node_add('java', n) FROM unnest(ARRAY['jrpexur', 'other', 'third']) n;
SELECT point, node, vnode FROM chash_points('java') ORDER BY point;
-- keys after the greatest non-negative point go to it, and so does a key at MIN_VALUE
SELECT chash_lookup('java', 'polygenelubricants') AS key_at_min_value,
	   count(*) AS keys_after_the_rest,
	   array_agg(DISTINCT chash_lookup('java', k)) AS their_owners
FROM (SELECT md5(i::text) AS k FROM generate_series(1, 10000) i) s
WHERE chash_position('java', k) > (SELECT max(point) FROM chash_points('java') WHERE point < 2147483648);
SELECT chash_ring_drop('java');

SELECT chash_ring_drop('memcached'), chash_ring_drop('spy');
DROP TABLE fixture_servers, fixture_keys, fixture_spy_keys, sizes, variants, on_point, before_tie, twem_tie, before_twem_tie;
