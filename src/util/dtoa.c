/* dtoa.c - the shortest decimal digits that read back to a given double.
 *
 * This is what makes dfs_fmt_double fast: records.csv prints millions of
 * doubles and the old way (snprintf with 15, 16, 17 digits plus a strtod
 * check each) cost several hundred nanoseconds per value.
 *
 * The algorithm is Schubfach, from Raffaello Giulietti, "The Schubfach way
 * to render doubles" (2020, revised 2021/2022).  In outline, for a finite
 * positive v = c * 2^q:
 *
 *  - Every real in the rounding interval R = [v - a, v + b] reads back as
 *    v (a = b = 2^q / 2, except a = 2^q / 4 when c = 2^52 is the smallest
 *    significand of its binade; R is closed iff c is even, because strtod
 *    breaks ties to the even significand).
 *  - Choose k = floor(log10(width of R)), so R is at least 10^k wide and
 *    narrower than 10^(k+1): R holds at least one multiple of 10^k and at
 *    most one multiple of 10^(k+1).
 *  - Scale v and both ends of R by 10^-k (times 4, so quarter units stay
 *    integral).  The product uses a 126-bit overestimate g of 10^-k
 *    normalised by a power of two, and is rounded "to odd": the result is
 *    the integer part with its lowest bit forced on when anything was cut
 *    off.  The paper proves that the non-integral values met here are
 *    far enough from integers for the estimate to have the right integer
 *    part, so it compares with any even integer exactly as the exact
 *    value does; every decision below is such a comparison, and so exact
 *    although the arithmetic is only 64 x 128 bits.
 *  - If exactly one multiple of 10^(k+1) lies in R, it is the answer (it
 *    is shorter than anything else in R).  Otherwise pick among s*10^k and
 *    (s+1)*10^k, s = floor(v / 10^k), the one in R, or the closer one when
 *    both are (ties to even s).
 *
 * Unlike the paper's Java code we do not force at least two digits for
 * the tiniest subnormals (Java prints 4.9E-324, printf's shortest is
 * 5e-324), which removes its special case for tiny significands.
 *
 * One more deviation serves %g compatibility.  The spec of dfs_fmt_double
 * is "the fewest digits p for which printf("%.*g", p, v) reads back",
 * i.e. among decimals of a given length only the one nearest to v counts.
 * For a symmetric R that is the same as Schubfach's answer.  When c = 2^52
 * the interval is lopsided (a = b/2) and the decimal Schubfach finds above
 * v may be farther from v than a same-length decimal below v that lies
 * outside R; printf would print the latter, which does not read back.
 * For those values only (powers of two) near_pow2() walks up the lengths
 * and picks the first correctly rounded decimal that lies in R.
 *
 * The table of 10^e approximations was computed with exact integer
 * arithmetic in Python and pasted here; for e in [-292, 324]:
 *
 *     r = floor(log2(10^e)) - 125          # exact, via bit lengths
 *     g = floor(10^e * 2^-r) + 1           # Python ints / exact division
 *     print("{0x%016x, 0x%016x}," % (g >> 64, g & (2**64 - 1)))
 *
 * tests/unit/test_format.c re-derives every entry with its own big-integer
 * code, so a damaged entry cannot go unnoticed. */
#include <stdbool.h>
#include <string.h>

#include "util/dtoa.h"

#define SIG_BITS 52
#define HIDDEN_BIT ((uint64_t)1 << SIG_BITS)
#define Q_MIN (-1074) /* exponent of the subnormals */
#define MASK63 (((uint64_t)1 << 63) - 1)

/* g = hi * 2^64 + lo, see the comment at the top */
typedef struct pow10_entry {
	uint64_t hi, lo;
} pow10_entry;

static const pow10_entry pow10_table[DFS_DTOA_POW10_MAX - DFS_DTOA_POW10_MIN + 1] = {
	{0x3fddec7f2faf3713, 0xc97a3a2704eec3df}, /* -292 */
	{0x27eab3cf7dcd826c, 0x5dec645863153a6c}, /* -291 */
	{0x31e560c35d40e307, 0x75677d6e7bda8906}, /* -290 */
	{0x3e5eb8f434911bc9, 0x52c15cca1ad12b48}, /* -289 */
	{0x26fb3398a0dab15d, 0xd3b8d9fe50c2bb0d}, /* -288 */
	{0x30ba007ec9115db5, 0x48a7107de4f369d0}, /* -287 */
	{0x3ce8809e7b55b522, 0x9ad0d49d5e304444}, /* -286 */
	{0x261150630d159135, 0xa0c284e25ade2aab}, /* -285 */
	{0x2f95a47bd05af583, 0x08f3261af195b555}, /* -284 */
	{0x3b7b0d9ac471b2e3, 0xcb2fefa1adfb22ab}, /* -283 */
	{0x252ce880bac70fce, 0x5efdf5c50cbcf5ab}, /* -282 */
	{0x2e7822a0e978d3c1, 0xf6bd73364fec3315}, /* -281 */
	{0x3a162b4923d708b2, 0x746cd003e3e73fdb}, /* -280 */
	{0x244ddb0db666656f, 0x88c402026e7087e9}, /* -279 */
	{0x2d6151d123fffecb, 0x6af502830a0ca9e3}, /* -278 */
	{0x38b9a6456cfffe7e, 0x45b24323cc8fd45c}, /* -277 */
	{0x237407eb641fff0e, 0xeb8f69f65fd9e4b9}, /* -276 */
	{0x2c5109e63d27fed2, 0xa6734473f7d05de8}, /* -275 */
	{0x37654c5fcc71fe87, 0x50101590f5c47561}, /* -274 */
	{0x229f4fbbdfc73f14, 0x920a0d7a999ac95d}, /* -273 */
	{0x2b4723aad7b90ed9, 0xb68c90d940017bb4}, /* -272 */
	{0x3618ec958da75290, 0x242fb50f9001daa1}, /* -271 */
	{0x21cf93dd7888939a, 0x169dd129ba0128a5}, /* -270 */
	{0x2a4378d4d6aab880, 0x9c454574288172ce}, /* -269 */
	{0x34d4570a0c5566a0, 0xc35696d132a1cf81}, /* -268 */
	{0x2104b66647b56024, 0x7a161e42bfa521b1}, /* -267 */
	{0x2945e3ffd9a2b82d, 0x989ba5d36f8e6a1d}, /* -266 */
	{0x33975cffd00b6638, 0xfec28f484b7204a4}, /* -265 */
	{0x203e9a1fe2071fe3, 0x9f39998d2f2742e7}, /* -264 */
	{0x284e40a7da88e7dc, 0x8707fff07af113a1}, /* -263 */
	{0x3261d0d1d12b21d3, 0xa8c9ffec99ad5889}, /* -262 */
	{0x3efa45064575ea48, 0x92fc7fe7c018aeab}, /* -261 */
	{0x275c6b23eb69b26d, 0x5bddcff0d80f6d2b}, /* -260 */
	{0x313385ece6441f08, 0xb2d543ed0e134875}, /* -259 */
	{0x3d8067681fd526ca, 0xdf8a94e851981a93}, /* -258 */
	{0x267040a113e5383e, 0xcbb69d1132ff109c}, /* -257 */
	{0x300c50c958de864e, 0x7ea444557fbed4c3}, /* -256 */
	{0x3c0f64fbaf1627e2, 0x1e4d556adfae89f3}, /* -255 */
	{0x25899f1d4d6dd8ed, 0x52f05562cbcd1638}, /* -254 */
	{0x2eec06e4a0c94f28, 0xa7ac6abb7ec05bc6}, /* -253 */
	{0x3aa7089dc8fba2f2, 0xd197856a5e7072b8}, /* -252 */
	{0x24a865629d9d45d7, 0xc2feb3627b0647b3}, /* -251 */
	{0x2dd27ebb4504974d, 0xb3be603b19c7d99f}, /* -250 */
	{0x39471e6a1645bd21, 0x20adf849e039d007}, /* -249 */
	{0x23cc73024deb9634, 0xb46cbb2e2c242205}, /* -248 */
	{0x2cbf8fc2e1667bc1, 0xe187e9f9b72d2a86}, /* -247 */
	{0x37ef73b399c01ab2, 0x59e9e47824f87527}, /* -246 */
	{0x22f5a850401810af, 0x78322ecb171b4939}, /* -245 */
	{0x2bb31264501e14db, 0x563eba7ddce21b87}, /* -244 */
	{0x369fd6fd64259a12, 0x2bce691d541aa268}, /* -243 */
	{0x2223e65e5e97804b, 0x5b6101b25490a581}, /* -242 */
	{0x2aacdff5f63d605e, 0x3239421ee9b4cee1}, /* -241 */
	{0x355817f373ccb875, 0xbec792a6a422029a}, /* -240 */
	{0x21570ef8285ff349, 0x973cbba8269541a0}, /* -239 */
	{0x29acd2b63277f01b, 0xfd0bea92303a9208}, /* -238 */
	{0x34180763bf15ec22, 0xfc4ee536bc49368a}, /* -237 */
	{0x208f049e576db395, 0xddb14f4235adc217}, /* -236 */
	{0x28b2c5c5ed49207b, 0x551da312c319329c}, /* -235 */
	{0x32df7737689b689a, 0x2a650bd773df7f43}, /* -234 */
	{0x3f97550542c242c0, 0xb4fe4ecd50d75f14}, /* -233 */
	{0x27be952349b969b8, 0x711ef14052869b6c}, /* -232 */
	{0x31ae3a6c1c27c426, 0x8d66ad9067284247}, /* -231 */
	{0x3e19c9072331b530, 0x30c058f480f252d9}, /* -230 */
	{0x26d01da475ff113e, 0x1e783798d09773c8}, /* -229 */
	{0x3084250d937ed58d, 0xa616457f04bd50ba}, /* -228 */
	{0x3ca52e50f85e8af1, 0x0f9bd6dec5eca4e8}, /* -227 */
	{0x25e73cf29b3b16d6, 0xa9c1664b3bb3e711}, /* -226 */
	{0x2f610c2f4209dc8c, 0x5431bfde0aa0e0d5}, /* -225 */
	{0x3b394f3b128c53af, 0x693e2fd58d49190b}, /* -224 */
	{0x2503d184eb97b44d, 0xa1c6dde5784dafa7}, /* -223 */
	{0x2e44c5e6267da161, 0x0a38955ed6611b90}, /* -222 */
	{0x39d5f75fb01d09b9, 0x4cc6bab68bf96274}, /* -221 */
	{0x2425ba9bce122613, 0xcffc34b2177bdd89}, /* -220 */
	{0x2d2f2942c196af98, 0xc3fb41de9d5ad4eb}, /* -219 */
	{0x387af39371fc5b7e, 0xf4fa125644b18a26}, /* -218 */
	{0x234cd83c273db92f, 0x591c4b75eaeef658}, /* -217 */
	{0x2c200e4b310d277b, 0x2f635e5365aab3ed}, /* -216 */
	{0x372811ddfd507159, 0xfb3c35e83f1560e9}, /* -215 */
	{0x22790b2abe5246d8, 0x3d05a1b1276d5c92}, /* -214 */
	{0x2b174df56de6d88e, 0x4c470a1d7148b3b6}, /* -213 */
	{0x35dd2172c9608eb1, 0xdf58cca4cd9ae0a3}, /* -212 */
	{0x21aa34e7bddc592f, 0x2b977fe70080cc66}, /* -211 */
	{0x2a14c221ad536f7a, 0xf67d5fe0c0a0ff80}, /* -210 */
	{0x3499f2aa18a84b59, 0xb41cb7d8f0c93f5f}, /* -209 */
	{0x20e037aa4f692f18, 0x1091f2e7967dc79c}, /* -208 */
	{0x29184594e3437ade, 0x14b66fa17c1d3983}, /* -207 */
	{0x335e56fa1c145995, 0x99e40b89db2487e3}, /* -206 */
	{0x201af65c518cb7fd, 0x802e873628f6d4ee}, /* -205 */
	{0x2821b3f365efe5fc, 0xe03a2903b3348a2a}, /* -204 */
	{0x322a20f03f6bdf7c, 0x1848b344a001acb4}, /* -203 */
	{0x3eb4a92c4f46d75b, 0x1e5ae015c80217e1}, /* -202 */
	{0x2730e9bbb18c4698, 0xf2f8cc0d9d014eed}, /* -201 */
	{0x30fd242a9def583f, 0x2fb6ff110441a2a8}, /* -200 */
	{0x3d3c6d35456b2e4e, 0xfba4bed545520b52}, /* -199 */
	{0x2645c4414b62fcf1, 0x5d46f7454b534713}, /* -198 */
	{0x2fd735519e3bbc2d, 0xb498b5169e2818d8}, /* -197 */
	{0x3bcd02a605caab39, 0x21bee25c45b21f0e}, /* -196 */
	{0x256021a7c39eab03, 0xb5174d79ab8f5369}, /* -195 */
	{0x2eb82a11b48655c4, 0xa25d20d816732843}, /* -194 */
	{0x3a66349621a7eb35, 0xcaf4690e1c0ff253}, /* -193 */
	{0x247fe0ddd508f301, 0x9ed8c1a8d189f774}, /* -192 */
	{0x2d9fd9154a4b2fc2, 0x068ef21305ec7551}, /* -191 */
	{0x3907cf5a9cddfbb2, 0x8832ae97c76792a5}, /* -190 */
	{0x23a4e198a20abd4f, 0x951fad1edca0bba8}, /* -189 */
	{0x2c8e19feca8d6ca3, 0x7a67986693c8ea91}, /* -188 */
	{0x37b1a07e7d30c7cc, 0x59017e8038bb2536}, /* -187 */
	{0x22cf044f0e3e7cdf, 0xb7a0ef102374f742}, /* -186 */
	{0x2b82c562d1ce1c17, 0xa5892ad42c523512}, /* -185 */
	{0x366376bb8641a31d, 0x8eeb75893766c256}, /* -184 */
	{0x21fe2a3533e905f2, 0x79532975c2a03976}, /* -183 */
	{0x2a7db4c280e3476f, 0x17a7f3d3334847d4}, /* -182 */
	{0x351d21f3211c194a, 0xdd91f0c8001a59c8}, /* -181 */
	{0x21323537f4b18fce, 0xca7b367d0010781d}, /* -180 */
	{0x297ec285f1ddf3c2, 0x7d1a041c40149625}, /* -179 */
	{0x33de73276e5570b3, 0x1c6085235019bbae}, /* -178 */
	{0x206b07f8a4f5666f, 0xf1bc53361210154d}, /* -177 */
	{0x2885c9f6ce32c00b, 0xee2b680396941aa0}, /* -176 */
	{0x32a73c7481bf700e, 0xe9b642047c392148}, /* -175 */
	{0x3f510b91a22f4c12, 0xa423d2859b476999}, /* -174 */
	{0x2792a73b055d8f8b, 0xa6966393810ca200}, /* -173 */
	{0x31775109c6b4f36e, 0x903bfc78614fca80}, /* -172 */
	{0x3dd5254c3862304a, 0x344afb9679a3bd20}, /* -171 */
	{0x26a5374fa33d5e2e, 0x60aedd3e0c065634}, /* -170 */
	{0x304e85238c0cb5b9, 0xf8da948d8f07ebc1}, /* -169 */
	{0x3c62266c6f0fe328, 0x771139b0f2c9e6b1}, /* -168 */
	{0x25bd5803c569edf9, 0x4a6ac40e97be302f}, /* -167 */
	{0x2f2cae04b6c46977, 0x9d0575123dadbc3a}, /* -166 */
	{0x3af7d985e47583d5, 0x8446d256cd192b49}, /* -165 */
	{0x24dae7f3aec97265, 0x72ac4376402fbb0e}, /* -164 */
	{0x2e11a1f09a7bcefe, 0xcf575453d03ba9d1}, /* -163 */
	{0x39960a6cc11ac2be, 0x832d2968c44a9445}, /* -162 */
	{0x23fdc683f8b0b9b7, 0x11fc39e17aae9cab}, /* -161 */
	{0x2cfd3824f6dce824, 0xd67b4859d95a43d6}, /* -160 */
	{0x383c862e3494222e, 0x0c1a1a704fb0d4cc}, /* -159 */
	{0x2325d3dce0dc955c, 0xc790508631ce84ff}, /* -158 */
	{0x2bef48d41913bab3, 0xf97464a7be42263f}, /* -157 */
	{0x36eb1b091f58a960, 0xf7d17dd1add2afcf}, /* -156 */
	{0x2252f0e5b39769dc, 0x9ae2eea30ca3ade1}, /* -155 */
	{0x2ae7ad1f207d4453, 0xc19baa4bcfcc995a}, /* -154 */
	{0x35a19866e89c9568, 0xb20294dec3bfbfb0}, /* -153 */
	{0x2184ff405161dd61, 0x6f419d0b3a57d7ce}, /* -152 */
	{0x29e63f1065ba54b9, 0xcb12044e08edcdc2}, /* -151 */
	{0x345fced47f28e9e8, 0x3dd685618b294132}, /* -150 */
	{0x20bbe144cf799231, 0x26a6135cf6f9c8bf}, /* -149 */
	{0x28ead9960357f6bd, 0x704f983434b83aef}, /* -148 */
	{0x33258ffb842df46c, 0xcc637e4141e649ab}, /* -147 */
	{0x3feef3fa65397187, 0xff7c5dd1925fdc15}, /* -146 */
	{0x27f5587c7f43e6f4, 0xffadbaa2fb7be98d}, /* -145 */
	{0x31f2ae9b9f14e0b2, 0x3f99294bba5ae3f1}, /* -144 */
	{0x3e6f5a4286da18de, 0xcf7f739ea8f19ced}, /* -143 */
	{0x2705986994484f8b, 0x41afa84329970214}, /* -142 */
	{0x30c6fe83f95a636e, 0x121b9253f3fcc299}, /* -141 */
	{0x3cf8be24f7b0fc49, 0x96a276e8f0fbf33f}, /* -140 */
	{0x261b76d71ace9dad, 0xfe258a51969d7808}, /* -139 */
	{0x2fa2548ce1824519, 0x7daeece5fc44d609}, /* -138 */
	{0x3b8ae9b019e2d65f, 0xdd1aa81f7b560b8c}, /* -137 */
	{0x2536d20e102dc5fb, 0xea30a913ad15c738}, /* -136 */
	{0x2e8486919439377a, 0xe4bcd358985b3905}, /* -135 */
	{0x3a25a835f9478559, 0x9dec082ebe720746}, /* -134 */
	{0x24578921bbccb358, 0x02b3851d3707448c}, /* -133 */
	{0x2d6d6b6a2abfe02e, 0x0360666484c915af}, /* -132 */
	{0x38c8c644b56fd839, 0x84387ffda5fb5b1b}, /* -131 */
	{0x237d7beaf165e723, 0xf2a34ffe87bd18f1}, /* -130 */
	{0x2c5cdae5adbf60ec, 0xef4c23fe29ac5f2d}, /* -129 */
	{0x3774119f192f3928, 0x2b1f2cfdb41776f8}, /* -128 */
	{0x22a88b036fbd83b9, 0x1af37c1e908eaa5b}, /* -127 */
	{0x2b52adc44bace4a7, 0x61b05b2634b254f2}, /* -126 */
	{0x362759355e981dd1, 0x3a1c71efc1deea2e}, /* -125 */
	{0x21d897c15b1f12a2, 0xc451c735d92b525d}, /* -124 */
	{0x2a4ebdb1b1e6d74b, 0x756639034f7626f4}, /* -123 */
	{0x34e26d1e1e608d1e, 0x52bfc7442353b0b1}, /* -122 */
	{0x210d8432d2fc5832, 0xf3b7dc8a96144e6f}, /* -121 */
	{0x2950e53f87bb6e3f, 0xb0a5d3ad3b99620b}, /* -120 */
	{0x33a51e8f69aa49cf, 0x9ccf48988a7fba8d}, /* -119 */
	{0x20473319a20a6e21, 0xc2018d5f568fd498}, /* -118 */
	{0x2858ffe00a8d09aa, 0x3281f0b72c33c9be}, /* -117 */
	{0x326f3fd80d304c14, 0xbf226ce4f740bc2e}, /* -116 */
	{0x3f0b0fce107c5f19, 0xeeeb081e3510eb39}, /* -115 */
	{0x2766e9e0ca4dbb70, 0x3552e512e12a9304}, /* -114 */
	{0x3140a458fce12a4c, 0x42a79e57997537c5}, /* -113 */
	{0x3d90cd6f3c1974df, 0x535185ed7fd285b6}, /* -112 */
	{0x267a8065858fe90b, 0x9412f3b46fe39392}, /* -111 */
	{0x3019207ee6f3e34e, 0x7917b0a18bdc7876}, /* -110 */
	{0x3c1f689ea0b0dc22, 0x175d9cc9eed39694}, /* -109 */
	{0x2593a163246e8995, 0x4e9a81fe35443e1c}, /* -108 */
	{0x2ef889bbed8a2bfa, 0xa241227dc2954da3}, /* -107 */
	{0x3ab6ac2ae8ecb6f9, 0x4ad16b1d333aa10c}, /* -106 */
	{0x24b22b9ad193f25b, 0xcec2e2f24004a4a8}, /* -105 */
	{0x2ddeb68185f8eef2, 0xc2739baed005cdd2}, /* -104 */
	{0x39566421e7772aaf, 0x7310829a84074146}, /* -103 */
	{0x23d5fe9530aa7aad, 0xa7ea51a0928488cc}, /* -102 */
	{0x2ccb7e3a7cd51959, 0x11e4e608b725aaff}, /* -101 */
	{0x37fe5dc91c0a5faf, 0x565e1f8ae4ef15be}, /* -100 */
	{0x22fefa9db1867bcd, 0x95fad3b6cf156d97}, /* -99 */
	{0x2bbeb9451de81ac0, 0xfb7988a482dac8fd}, /* -98 */
	{0x36ae679665622171, 0x3a57eacda3917b3c}, /* -97 */
	{0x222d00bdff5d54e6, 0xc476f2c0863aed06}, /* -96 */
	{0x2ab840ed7f34aa20, 0x7594af70a7c9a847}, /* -95 */
	{0x35665128df01d4a8, 0x92f9db4cd1bc1258}, /* -94 */
	{0x215ff2b98b6124e9, 0x5bdc291003158b77}, /* -93 */
	{0x29b7ef67ee396e23, 0xb2d3335403daee55}, /* -92 */
	{0x3425eb41e9c7c9ac, 0x9f88002904d1a9ea}, /* -91 */
	{0x2097b309321cde0b, 0xe3b50019a3030a33}, /* -90 */
	{0x28bd9fcb7ea4158e, 0xdca240200bc3ccbf}, /* -89 */
	{0x32ed07be5e4d1af2, 0x93cad0280eb4bfef}, /* -88 */
	{0x3fa849adf5e061af, 0x38bd84321261efeb}, /* -87 */
	{0x27c92e0cb9ac3d0d, 0x8376729f4b7d35f3}, /* -86 */
	{0x31bb798fe8174c50, 0xe4540f471e5c836f}, /* -85 */
	{0x3e2a57f3e21d1f65, 0x1d691318e5f3a44b}, /* -84 */
	{0x26da76f86d52339f, 0x3261abef8fb846af}, /* -83 */
	{0x309114b688a6c086, 0xfefa16eb73a6585b}, /* -82 */
	{0x3cb559e42ad070a8, 0xbeb89ca6508fee71}, /* -81 */
	{0x25f1582e9ac24669, 0x773361e7f259f507}, /* -80 */
	{0x2f6dae3a4172d803, 0xd5003a61eef07249}, /* -79 */
	{0x3b4919c8d1cf8e04, 0xca4048fa6aac8edb}, /* -78 */
	{0x250db01d8321b8c2, 0xfe682d9c82abd949}, /* -77 */
	{0x2e511c24e3ea26f3, 0xbe023903a356cf9b}, /* -76 */
	{0x39e5632e1ce4b0b0, 0xad82c7448c2c8382}, /* -75 */
	{0x242f5dfcd20eee6e, 0x6c71bc8ad79bd231}, /* -74 */
	{0x2d3b357c0692aa0a, 0x078e2bad8d82c6bd}, /* -73 */
	{0x388a02db0837548c, 0x8971b698f0e3786d}, /* -72 */
	{0x235641c8e52294d7, 0xd5e7121f968e2b44}, /* -71 */
	{0x2c2bd23b1e6b3a0d, 0xcb60d6a77c31b615}, /* -70 */
	{0x3736c6c9e6060891, 0x3e390c515b3e239a}, /* -69 */
	{0x22823c3e2fc3c55a, 0xc6e3a7b2d906d640}, /* -68 */
	{0x2b22cb4dbbb4b6b1, 0x789c919f8f488bd0}, /* -67 */
	{0x35eb7e212aa1e45d, 0xd6c3b607731aaec4}, /* -66 */
	{0x21b32ed4baa52eba, 0xa63a51c4a7f0ad3b}, /* -65 */
	{0x2a1ffa89e94e7a69, 0x4fc8e635d1ecd88a}, /* -64 */
	{0x34a7f92c63a21903, 0xa3bb1fc346680eac}, /* -63 */
	{0x20e8fbbbbe454fa2, 0x4654f3da0c01092c}, /* -62 */
	{0x29233aaaadd6a38a, 0xd7ea30d08f014b76}, /* -61 */
	{0x336c0955594c4c6d, 0x8de4bd04b2c19e54}, /* -60 */
	{0x202385d557cfafc4, 0x78aef622efb902f5}, /* -59 */
	{0x282c674aadc39bb5, 0x96dab3ababa743b2}, /* -58 */
	{0x3237811d593482a2, 0xfc9160969691149e}, /* -57 */
	{0x3ec56164af81a34b, 0xbbb5b8bc3c3559c5}, /* -56 */
	{0x273b5cdeedb1060f, 0x55519375a5a1581b}, /* -55 */
	{0x310a3416a91d4793, 0x2aa5f8530f09ae22}, /* -54 */
	{0x3d4cc11c53649977, 0xf54f7667d2cc19ab}, /* -53 */
	{0x264ff8b1b41edfea, 0xf951aa00e3bf900b}, /* -52 */
	{0x2fe3f6de212697e5, 0xb7a614811caf740d}, /* -51 */
	{0x3bdcf495a9703ddf, 0x258f99a163db5111}, /* -50 */
	{0x256a18dd89e626ab, 0x7779c004de6912ab}, /* -49 */
	{0x2ec49f14ec5fb056, 0x5558300616035755}, /* -48 */
	{0x3a75c6da27779c6b, 0xeaae3c079b842d2a}, /* -47 */
	{0x24899c4858aac1c3, 0x72ace584c1329c3b}, /* -46 */
	{0x2dac035a6ed57234, 0x4f581ee5f17f4349}, /* -45 */
	{0x391704310a8acec1, 0x632e269f6ddf141b}, /* -44 */
	{0x23ae629ea696c138, 0xddfcd823a4ab6c91}, /* -43 */
	{0x2c99fb46503c7187, 0x157c0e2c8dd647b5}, /* -42 */
	{0x37c07a17e44b8de8, 0xdadb11b7b14bd9a3}, /* -41 */
	{0x22d84c4eeeaf38b1, 0x88c8eb12cecf6806}, /* -40 */
	{0x2b8e5f62aa5b06dd, 0xeafb25d782834207}, /* -39 */
	{0x3671f73b54f1c895, 0x65b9ef4d63241289}, /* -38 */
	{0x22073a8515171d5d, 0x5f9435905df68b96}, /* -37 */
	{0x2a8909265a5ce4b4, 0xb77942f475742e7b}, /* -36 */
	{0x352b4b6ff0f41de1, 0xe55793b192d13a1a}, /* -35 */
	{0x213b0f25f69892ad, 0x2f56bc4efbc2c450}, /* -34 */
	{0x2989d2ef743eb758, 0x7b2c6b62bab37564}, /* -33 */
	{0x33ec47ab514e652e, 0x99f7863b696052bd}, /* -32 */
	{0x2073accb12d0ff3d, 0x203ab3e521dc33b6}, /* -31 */
	{0x289097fdd7853f0c, 0x684960de6a5340a4}, /* -30 */
	{0x32b4bdfd4d668ecf, 0x825bb91604e810cd}, /* -29 */
	{0x3f61ed7ca0c03283, 0x62f2a75b86221500}, /* -28 */
	{0x279d346de4781f92, 0x1dd7a89933d54d20}, /* -27 */
	{0x318481895d962776, 0xa54d92bf80caa068}, /* -26 */
	{0x3de5a1ebb4fbb154, 0x4ea0f76f60fd4882}, /* -25 */
	{0x26af8533511d4ed4, 0xb1249aa59c9e4d51}, /* -24 */
	{0x305b66802564a289, 0xdd6dc14f03c5e0a5}, /* -23 */
	{0x3c7240202ebdcb2c, 0x54c931a2c4b758cf}, /* -22 */
	{0x25c768141d369efb, 0xb4fdbf05baf29781}, /* -21 */
	{0x2f394219248446ba, 0xa23d2ec729af3d62}, /* -20 */
	{0x3b07929f6da55869, 0x4acc7a78f41b0cba}, /* -19 */
	{0x24e4bba3a4875741, 0xcebfcc8b9890e7f4}, /* -18 */
	{0x2e1dea8c8da92d12, 0x426fbfae7eb521f1}, /* -17 */
	{0x39a5652fb1137856, 0xd30baf9a1e626a6d}, /* -16 */
	{0x24075f3dceac2b36, 0x43e74dc052fd8285}, /* -15 */
	{0x2d09370d42573603, 0xd4e1213067bce326}, /* -14 */
	{0x384b84d092ed0384, 0xca19697c81ac1bef}, /* -13 */
	{0x232f33025bd42232, 0xfe4fe1edd10b9175}, /* -12 */
	{0x2bfaffc2f2c92abf, 0xbde3da69454e75d3}, /* -11 */
	{0x36f9bfb3af7b756f, 0xad5cd10396a21347}, /* -10 */
	{0x225c17d04dad2965, 0xcc5a02a23e254c0d}, /* -9 */
	{0x2af31dc4611873bf, 0x3f70834acdae9f10}, /* -8 */
	{0x35afe535795e90af, 0x0f4ca41d811a46d4}, /* -7 */
	{0x218def416bdb1a6d, 0x698fe69270b06c44}, /* -6 */
	{0x29f16b11c6d1e108, 0xc3f3e0370cdc8755}, /* -5 */
	{0x346dc5d63886594a, 0xf4f0d844d013a92b}, /* -4 */
	{0x20c49ba5e353f7ce, 0xd916872b020c49bb}, /* -3 */
	{0x28f5c28f5c28f5c2, 0x8f5c28f5c28f5c29}, /* -2 */
	{0x3333333333333333, 0x3333333333333334}, /* -1 */
	{0x2000000000000000, 0x0000000000000001}, /* 0 */
	{0x2800000000000000, 0x0000000000000001}, /* 1 */
	{0x3200000000000000, 0x0000000000000001}, /* 2 */
	{0x3e80000000000000, 0x0000000000000001}, /* 3 */
	{0x2710000000000000, 0x0000000000000001}, /* 4 */
	{0x30d4000000000000, 0x0000000000000001}, /* 5 */
	{0x3d09000000000000, 0x0000000000000001}, /* 6 */
	{0x2625a00000000000, 0x0000000000000001}, /* 7 */
	{0x2faf080000000000, 0x0000000000000001}, /* 8 */
	{0x3b9aca0000000000, 0x0000000000000001}, /* 9 */
	{0x2540be4000000000, 0x0000000000000001}, /* 10 */
	{0x2e90edd000000000, 0x0000000000000001}, /* 11 */
	{0x3a35294400000000, 0x0000000000000001}, /* 12 */
	{0x246139ca80000000, 0x0000000000000001}, /* 13 */
	{0x2d79883d20000000, 0x0000000000000001}, /* 14 */
	{0x38d7ea4c68000000, 0x0000000000000001}, /* 15 */
	{0x2386f26fc1000000, 0x0000000000000001}, /* 16 */
	{0x2c68af0bb1400000, 0x0000000000000001}, /* 17 */
	{0x3782dace9d900000, 0x0000000000000001}, /* 18 */
	{0x22b1c8c1227a0000, 0x0000000000000001}, /* 19 */
	{0x2b5e3af16b188000, 0x0000000000000001}, /* 20 */
	{0x3635c9adc5dea000, 0x0000000000000001}, /* 21 */
	{0x21e19e0c9bab2400, 0x0000000000000001}, /* 22 */
	{0x2a5a058fc295ed00, 0x0000000000000001}, /* 23 */
	{0x34f086f3b33b6840, 0x0000000000000001}, /* 24 */
	{0x2116545850052128, 0x0000000000000001}, /* 25 */
	{0x295be96e64066972, 0x0000000000000001}, /* 26 */
	{0x33b2e3c9fd0803ce, 0x8000000000000001}, /* 27 */
	{0x204fce5e3e250261, 0x1000000000000001}, /* 28 */
	{0x2863c1f5cdae42f9, 0x5400000000000001}, /* 29 */
	{0x327cb2734119d3b7, 0xa900000000000001}, /* 30 */
	{0x3f1bdf10116048a5, 0x9340000000000001}, /* 31 */
	{0x27716b6a0adc2d67, 0x7c08000000000001}, /* 32 */
	{0x314dc6448d9338c1, 0x5b0a000000000001}, /* 33 */
	{0x3da137d5b0f806f1, 0xb1cc800000000001}, /* 34 */
	{0x2684c2e58e9b0457, 0x0f1fd00000000001}, /* 35 */
	{0x3025f39ef241c56c, 0xd2e7c40000000001}, /* 36 */
	{0x3c2f7086aed236c8, 0x07a1b50000000001}, /* 37 */
	{0x259da6542d43623d, 0x04c5112000000001}, /* 38 */
	{0x2f050fe938943acc, 0x45f6556800000001}, /* 39 */
	{0x3ac653e386b9497f, 0x5773eac200000001}, /* 40 */
	{0x24bbf46e3433cdef, 0x96a872b940000001}, /* 41 */
	{0x2deaf189c140c16b, 0x7c528f6790000001}, /* 42 */
	{0x3965adec3190f1c6, 0x5b67334174000001}, /* 43 */
	{0x23df8cb39efa971b, 0xf9208008e8800001}, /* 44 */
	{0x2cd76fe086b93ce2, 0xf768a00b22a00001}, /* 45 */
	{0x380d4bd8a8678c1b, 0xb542c80deb480001}, /* 46 */
	{0x23084f676940b791, 0x5149bd08b30d0001}, /* 47 */
	{0x2bca63414390e575, 0xa59c2c4adfd04001}, /* 48 */
	{0x36bcfc1194751ed3, 0x0f03375d97c45001}, /* 49 */
	{0x22361d8afcc93343, 0xe962029a7edab201}, /* 50 */
	{0x2ac3a4edbbfb8014, 0xe3ba83411e915e81}, /* 51 */
	{0x35748e292afa601a, 0x1ca924116635b621}, /* 52 */
	{0x2168d8d9badc7c10, 0x51e9b68adfe191d5}, /* 53 */
	{0x29c30f1029939b14, 0x6664242d97d9f64a}, /* 54 */
	{0x3433d2d433f881d9, 0x7ffd2d38fdd073dc}, /* 55 */
	{0x20a063c4a07b5127, 0xeffe3c439ea2486a}, /* 56 */
	{0x28c87cb5c89a2571, 0xebfdcb54864ada84}, /* 57 */
	{0x32fa9be33ac0aece, 0x66fd3e29a7dd9125}, /* 58 */
	{0x3fb942dc0970da82, 0x00bc8db411d4f56e}, /* 59 */
	{0x27d3c9c985e68891, 0x4075d8908b251965}, /* 60 */
	{0x31c8bc3be7602ab5, 0x90934eb4adee5fbe}, /* 61 */
	{0x3e3aeb4ae1383562, 0xf4b82261d969f7ad}, /* 62 */
	{0x26e4d30eccc3215d, 0xd8f3157d27e23acc}, /* 63 */
	{0x309e07d27ff3e9b5, 0x4f2fdadc71dac97f}, /* 64 */
	{0x3cc589c71ff0e422, 0xa2fbd1938e517bdf}, /* 65 */
	{0x25fb761c73f68e95, 0xa5dd62fc38f2ed6c}, /* 66 */
	{0x2f7a53a390f4323b, 0x0f54bbbb472fa8c6}, /* 67 */
	{0x3b58e88c75313ec9, 0xd329eaaa18fb92f8}, /* 68 */
	{0x25179157c93ec73e, 0x23fa32aa4f9d3bdb}, /* 69 */
	{0x2e5d75adbb8e790d, 0xacf8bf54e3848ad2}, /* 70 */
	{0x39f4d3192a721751, 0x1836ef2a1c65ad86}, /* 71 */
	{0x243903efba874e92, 0xaf22557a51bf8c74}, /* 72 */
	{0x2d4744eba9292237, 0x5aeaead8e62f6f91}, /* 73 */
	{0x3899162693736ac5, 0x31a5a58f1fbb4b75}, /* 74 */
	{0x235fadd81c2822bb, 0x3f07877973d50f29}, /* 75 */
	{0x2c37994e23322b6a, 0x0ec96957d0ca52f3}, /* 76 */
	{0x37457fa1abfeb644, 0x927bc3adc4fce7b0}, /* 77 */
	{0x228b6fc50b7f31ea, 0xdb8d5a4c9b1e10ce}, /* 78 */
	{0x2b2e4bb64e5efe65, 0x9270b0dfc1e59502}, /* 79 */
	{0x35f9dea3e1f6bdfe, 0xf70cdd17b25efa42}, /* 80 */
	{0x21bc2b266d3a36bf, 0x5a680a2ecf7b5c69}, /* 81 */
	{0x2a2b35f00888c46f, 0x31020cba835a3384}, /* 82 */
	{0x34b6036c0aaaf58a, 0xfd428fe92430c065}, /* 83 */
	{0x20f1c22386aad976, 0xde4999f1b69e783f}, /* 84 */
	{0x292e32ac68558fd4, 0x95dc006e2446164f}, /* 85 */
	{0x3379bf57826af3c9, 0xbb530089ad579be2}, /* 86 */
	{0x202c1796b182d85e, 0x1513e0560c56c16e}, /* 87 */
	{0x28371d7c5de38e75, 0x9a58d86b8f6c71c9}, /* 88 */
	{0x3244e4db755c7213, 0x00ef0e8673478e3b}, /* 89 */
	{0x3ed61e1252b38e97, 0xc12ad228101971c9}, /* 90 */
	{0x2745d2cb73b0391e, 0xd8bac3590a0fe71e}, /* 91 */
	{0x3117477e509c4766, 0x8ee9742f4c93e0e6}, /* 92 */
	{0x3d5d195de4c35940, 0x32a3d13b1fb8d91f}, /* 93 */
	{0x265a2fdaaefa17c8, 0x1fa662c4f3d387b3}, /* 94 */
	{0x2ff0bbd15ab89dba, 0x278ffb7630c869a0}, /* 95 */
	{0x3beceac5b166c528, 0xb173fa53bcfa8408}, /* 96 */
	{0x257412bb8ee03b39, 0x6ee87c74561c9285}, /* 97 */
	{0x2ed1176a72984a07, 0xcaa29b916ba3b726}, /* 98 */
	{0x3a855d450f3e5c89, 0xbd4b4275c68ca4f0}, /* 99 */
	{0x24935a4b2986f9d6, 0x164f09899c17e716}, /* 100 */
	{0x2db830ddf3e8b84b, 0x9be2cbec031de0dc}, /* 101 */
	{0x39263d1570e2e65e, 0x82db7ee703e55912}, /* 102 */
	{0x23b7e62d668dcffb, 0x11c92f50626f57ac}, /* 103 */
	{0x2ca5dfb8c03143f9, 0xd63b7b247b0b2d96}, /* 104 */
	{0x37cf57a6f03d94f8, 0x4bca59ed99cdf8fc}, /* 105 */
	{0x22e196c856267d1b, 0x2f5e78348020bb9e}, /* 106 */
	{0x2b99fc7a6bb01c61, 0xfb361641a028ea85}, /* 107 */
	{0x36807b99069c237a, 0x7a039bd208332526}, /* 108 */
	{0x22104d3fa421962c, 0x8c424163451ff738}, /* 109 */
	{0x2a94608f8d29fbb7, 0xaf52d1bc1667f506}, /* 110 */
	{0x353978b370747aa5, 0x9b27862b1c01f247}, /* 111 */
	{0x2143eb702648cca7, 0x80f8b3daf181376d}, /* 112 */
	{0x2994e64c2fdaffd1, 0x6136e0d1ade18548}, /* 113 */
	{0x33fa1fdf3bd1bfc5, 0xb98499061959e699}, /* 114 */
	{0x207c53eb856317db, 0x93f2dfa3cfd83020}, /* 115 */
	{0x289b68e666bbddd2, 0x78ef978cc3ce3c28}, /* 116 */
	{0x32c24320006ad547, 0x172b7d6ff4c1cb32}, /* 117 */
	{0x3f72d3e800858a98, 0xdcf65ccbf1f23dfe}, /* 118 */
	{0x27a7c4710053769f, 0x8a19f9ff773766bf}, /* 119 */
	{0x3191b58d40685447, 0x6ca0787f5505406f}, /* 120 */
	{0x3df622f090826959, 0x47c8969f2a46908a}, /* 121 */
	{0x26b9d5d65a5181d7, 0xccdd5e237a6c1a57}, /* 122 */
	{0x30684b4bf0e5e24d, 0xc014b5ac590720ec}, /* 123 */
	{0x3c825e1eed1f5ae1, 0x3019e3176f48e927}, /* 124 */
	{0x25d17ad3543398cc, 0xbe102deea58d91b9}, /* 125 */
	{0x2f45d98829407eff, 0xed94396a4ef0f627}, /* 126 */
	{0x3b174fea33909ebf, 0xe8f947c4e2ad33b0}, /* 127 */
	{0x24ee91f2603a6337, 0xf19bccdb0dac404e}, /* 128 */
	{0x2e2a366ef848fc05, 0xee02c011d1175062}, /* 129 */
	{0x39b4c40ab65b3b07, 0x69837016455d247a}, /* 130 */
	{0x2410fa86b1f904e4, 0xa1f2260deb5a36cc}, /* 131 */
	{0x2d1539285e77461d, 0xca6eaf916630c47f}, /* 132 */
	{0x385a8772761517a5, 0x3d0a5b75bfbcf59f}, /* 133 */
	{0x233894a789cd2ec7, 0x4626792997d61984}, /* 134 */
	{0x2c06b9d16c407a79, 0x17b01773fdcb9fe4}, /* 135 */
	{0x37086845c7509917, 0x5d9c1d50fd3e87dd}, /* 136 */
	{0x2265412b9c925fae, 0x9a8192529e4714eb}, /* 137 */
	{0x2afe917683b6f79a, 0x4121f6e745d8da25}, /* 138 */
	{0x35be35d424a4b580, 0xd16a74a1174f10ae}, /* 139 */
	{0x2196e1a496e6f170, 0x82e288e4ae916a6d}, /* 140 */
	{0x29fc9a0dbca0adcc, 0xa39b2b1dda35c508}, /* 141 */
	{0x347bc0912bc8d93f, 0xcc81f5e550c3364a}, /* 142 */
	{0x20cd585abb5d87c7, 0xdfd139af527a01ef}, /* 143 */
	{0x2900ae716a34e9b9, 0xd7c5881b2718826a}, /* 144 */
	{0x3340da0dc4c22428, 0x4db6ea21f0dea304}, /* 145 */
	{0x200888489af95699, 0x30925255368b25e3}, /* 146 */
	{0x280aaa5ac1b7ac3f, 0x7cb6e6ea842def5c}, /* 147 */
	{0x320d54f17225974f, 0x5be4a0a525396b32}, /* 148 */
	{0x3e90aa2dceaefd23, 0x32ddc8ce6e87c5ff}, /* 149 */
	{0x271a6a5ca12d5e35, 0xffca9d810514dbbf}, /* 150 */
	{0x30e104f3c978b5c3, 0x7fbd44e1465a12af}, /* 151 */
	{0x3d194630bbd6e334, 0x5fac961997f0975b}, /* 152 */
	{0x262fcbde75664e00, 0xbbcbddcffef65e99}, /* 153 */
	{0x2fbbbed612bfe180, 0xeabed543feb3f63f}, /* 154 */
	{0x3baaae8b976fd9e1, 0x256e8a94fe60f3cf}, /* 155 */
	{0x254aad173ea5e82c, 0xb765169d1efc9861}, /* 156 */
	{0x2e9d585d0e4f6237, 0xe53e5c4466bbbe7a}, /* 157 */
	{0x3a44ae7451e33ac5, 0xde8df355806aae18}, /* 158 */
	{0x246aed08b32e04bb, 0xab18b8157042accf}, /* 159 */
	{0x2d85a84adff985ea, 0x95dee61acc535803}, /* 160 */
	{0x38e7125d97f7e765, 0x3b569fa17f682e03}, /* 161 */
	{0x23906b7a7efaf09f, 0x451623c4efa11cc2}, /* 162 */
	{0x2c7486591eb9acc7, 0x165bacb62b8963f3}, /* 163 */
	{0x3791a7ef666817f8, 0xdbf297e3b66bbcef}, /* 164 */
	{0x22bb08f5a0010efb, 0x89779eee52035616}, /* 165 */
	{0x2b69cb33080152ba, 0x6bd586a9e6842b9b}, /* 166 */
	{0x36443dffca01a769, 0x06cae85460253682}, /* 167 */
	{0x21eaa6bfde4108a1, 0xa43ed134bc174211}, /* 168 */
	{0x2a65506fd5d14aca, 0x0d4e8581eb1d1295}, /* 169 */
	{0x34fea48bcb459d7c, 0x90a226e265e4573b}, /* 170 */
	{0x211f26d75f0b826d, 0xda65584d7faeb685}, /* 171 */
	{0x2966f08d36ce6309, 0x50feae60df9a6426}, /* 172 */
	{0x33c0acb08481fbcb, 0xa53e59f91780fd2f}, /* 173 */
	{0x20586bee52d13d5f, 0x4746f83baeb09e3e}, /* 174 */
	{0x286e86e9e7858cb7, 0x1918b64a9a5cc5cd}, /* 175 */
	{0x328a28a46166efe4, 0xdf5ee3dd40f3f740}, /* 176 */
	{0x3f2cb2cd79c0abde, 0x17369cd49130f510}, /* 177 */
	{0x277befc06c186b6a, 0xce822204dabe992a}, /* 178 */
	{0x315aebb0871e8645, 0x8222aa86116e3f75}, /* 179 */
	{0x3db1a69ca8e627d6, 0xe2ab552795c9cf52}, /* 180 */
	{0x268f0821e98fd8e6, 0x4dab1538bd9e2193}, /* 181 */
	{0x3032ca2a63f3cf1f, 0xe115da86ed05a9f8}, /* 182 */
	{0x3c3f7cb4fcf0c2e7, 0xd95b5128a8471476}, /* 183 */
	{0x25a7adf11e1679d0, 0xe7d912b9692c6cca}, /* 184 */
	{0x2f11996d659c1845, 0x21cf5767c37787fc}, /* 185 */
	{0x3ad5ffc8bf031e56, 0x6a432d41b45569fb}, /* 186 */
	{0x24c5bfdd7761f2f6, 0x0269fc4910b5623d}, /* 187 */
	{0x2df72fd4d53a6fb3, 0x83047b5b54e2bacc}, /* 188 */
	{0x3974fbca0a890ba0, 0x63c59a322a1b697f}, /* 189 */
	{0x23e91d5e4695a744, 0x3e5b805f5a5121f0}, /* 190 */
	{0x2ce364b5d83b1115, 0x4df2607730e56a6c}, /* 191 */
	{0x381c3de34e49d55a, 0xa16ef894fd1ec506}, /* 192 */
	{0x2311a6ae10ee2558, 0xa4e55b5d1e333b24}, /* 193 */
	{0x2bd610599529aeae, 0xce1eb23465c009ed}, /* 194 */
	{0x36cb946ffa741a5a, 0x81a65ec17f300c68}, /* 195 */
	{0x223f3cc5fc889078, 0x9107fb38ef7e07c1}, /* 196 */
	{0x2acf0bf77baab496, 0xb549fa072b5d89b1}, /* 197 */
	{0x3582cef55a9561bc, 0x629c7888f634ec1e}, /* 198 */
	{0x2171c159589d5d15, 0xbda1cb5599e11393}, /* 199 */
	{0x29ce31afaec4b45b, 0x2d0a3e2b00595877}, /* 200 */
	{0x3441be1b9a75e171, 0xf84ccdb5c06fae95}, /* 201 */
	{0x20a916d14089ace7, 0x3b3000919845cd1d}, /* 202 */
	{0x28d35c8590ac1821, 0x09fc00b5fe574065}, /* 203 */
	{0x330833a6f4d71e29, 0x4c7b00e37ded107e}, /* 204 */
	{0x3fca4090b20ce5b3, 0x9f99c11c5d68549d}, /* 205 */
	{0x27de685a6f480f90, 0x43c018b1ba6134e2}, /* 206 */
	{0x31d602710b1a1374, 0x54b01ede28f9821b}, /* 207 */
	{0x3e4b830d4de09851, 0x69dc2695b337e2a1}, /* 208 */
	{0x26ef31e850ac5f32, 0xe229981d9002eda5}, /* 209 */
	{0x30aafe6264d776ff, 0x9ab3fe24f403a90e}, /* 210 */
	{0x3cd5bdfafe0d54bf, 0x8160fdae31049351}, /* 211 */
	{0x260596bcdec854f7, 0xb0dc9e8cdea2dc13}, /* 212 */
	{0x2f86fc6c167a6a35, 0x9d13c630164b9318}, /* 213 */
	{0x3b68bb871c1904c3, 0x0458b7bc1bde77dd}, /* 214 */
	{0x25217534718fa2f9, 0xe2b772d5916b0aeb}, /* 215 */
	{0x2e69d2818df38bb8, 0x5b654f8af5c5cda5}, /* 216 */
	{0x3a044721f1706ea6, 0x723ea36db337410e}, /* 217 */
	{0x2442ac7536e64528, 0x07672624900288a9}, /* 218 */
	{0x2d535792849fd672, 0x0940efadb4032ad3}, /* 219 */
	{0x38a82d7725c7cc0e, 0x8b912b992103f588}, /* 220 */
	{0x23691c6a779cdf89, 0x173abb3fb4a27975}, /* 221 */
	{0x2c4363851584176b, 0x5d096a0fa1cb17d2}, /* 222 */
	{0x37543c665ae51d46, 0x344bc4938a3dddc7}, /* 223 */
	{0x2294a5bff8cf324b, 0xe0af5adc3666aa9c}, /* 224 */
	{0x2b39cf2ff702fede, 0xd8db319344005543}, /* 225 */
	{0x360842fbf4c3be96, 0x8f11fdf815006a94}, /* 226 */
	{0x21c529dd78fa571e, 0x196b3ebb0d20429d}, /* 227 */
	{0x2a367454d738ece5, 0x9fc60e69d0685344}, /* 228 */
	{0x34c4116a0d07281f, 0x07b7920444826815}, /* 229 */
	{0x20fa8ae248247913, 0x64d2bb42aad1810d}, /* 230 */
	{0x29392d9ada2d9758, 0x3e076a135585e150}, /* 231 */
	{0x3387790190b8fd2e, 0x4d8944982ae759a4}, /* 232 */
	{0x2034aba0fa739e3c, 0xf075cadf1ad09807}, /* 233 */
	{0x2841d689391085cc, 0x2c933d96e184be08}, /* 234 */
	{0x32524c2b8754a73f, 0x37b80cfc99e5ed8a}, /* 235 */
	{0x3ee6df366929d10f, 0x05a6103bc05f68ed}, /* 236 */
	{0x27504b8201ba22a9, 0x6387ca25583ba194}, /* 237 */
	{0x31245e628228ab53, 0xbc69bcaeae4a89f9}, /* 238 */
	{0x3d6d75fb22b2d628, 0xab842bda59dd2c77}, /* 239 */
	{0x266469bcf5afc5d9, 0x6b329b68782a3bcb}, /* 240 */
	{0x2ffd842c331bb74f, 0xc5ff42429634cabd}, /* 241 */
	{0x3bfce5373fe2a523, 0xb77f12d33bc1fd6d}, /* 242 */
	{0x257e0f4287eda736, 0x52af6bc405593e64}, /* 243 */
	{0x2edd931329e91103, 0xe75b46b506af8dfd}, /* 244 */
	{0x3a94f7d7f4635544, 0xe1321862485b717c}, /* 245 */
	{0x249d1ae6f8be154b, 0x0cbf4f3d6d3926ee}, /* 246 */
	{0x2dc461a0b6ed9a9d, 0xcfef230cc88770a9}, /* 247 */
	{0x39357a08e4a90145, 0x43eaebcffaa94cd3}, /* 248 */
	{0x23c16c458ee9a0cb, 0x4a72d361fca9d004}, /* 249 */
	{0x2cb1c756f2a408fe, 0x1d0f883a7bd44405}, /* 250 */
	{0x37de392caf4d0b3d, 0xa4536a491ac95506}, /* 251 */
	{0x22eae3bbed902706, 0x86b4226db0bdd524}, /* 252 */
	{0x2ba59caae8f430c8, 0x28612b091ced4a6d}, /* 253 */
	{0x368f03d5a3313cfa, 0x327975cb64289d08}, /* 254 */
	{0x2219626585fec61c, 0x5f8be99f1e996225}, /* 255 */
	{0x2a9fbafee77e77a3, 0x776ee406e63fbaae}, /* 256 */
	{0x3547a9bea15e158c, 0x554a9d089fcfa95a}, /* 257 */
	{0x214cca1724dacd77, 0xb54ea22563e1c9d8}, /* 258 */
	{0x299ffc9cee1180d5, 0xa2a24aaebcda3c4e}, /* 259 */
	{0x3407fbc42995e10b, 0x0b4add5a6c10cb62}, /* 260 */
	{0x2084fd5a99fdaca6, 0xe70eca58838a7f1d}, /* 261 */
	{0x28a63cb1407d17d0, 0xa0d27ceea46d1ee4}, /* 262 */
	{0x32cfcbdd909c5dc4, 0xc9071c2a4d88669d}, /* 263 */
	{0x3f83bed4f4c37535, 0xfb48e334e0ea8045}, /* 264 */
	{0x27b2574518fa2941, 0xbd0d8e010c92902b}, /* 265 */
	{0x319eed165f38b392, 0x2c50f1814fb73436}, /* 266 */
	{0x3e06a85bf706e076, 0xb7652de1a3a50143}, /* 267 */
	{0x26c429397a644c4a, 0x329f3cad064720ca}, /* 268 */
	{0x30753387d8fd5f5c, 0xbf470bd847d8e8fd}, /* 269 */
	{0x3c928069cf3cb733, 0xef18cece59cf233c}, /* 270 */
	{0x25db90422185f280, 0x756f8140f8217605}, /* 271 */
	{0x2f527452a9e76f20, 0x92cb61913629d387}, /* 272 */
	{0x3b27116754614ae8, 0xb77e39f583b44868}, /* 273 */
	{0x24f86ae094bcced1, 0x72aee4397250ad41}, /* 274 */
	{0x2e368598b9ec0285, 0xcf5a9d47cee4d891}, /* 275 */
	{0x39c426fee8670327, 0x43314499c29e0eb6}, /* 276 */
	{0x241a985f514061f8, 0x89fecae019a2c932}, /* 277 */
	{0x2d213e7725907a76, 0xac7e7d98200b7b7e}, /* 278 */
	{0x38698e14eef49914, 0x579e1cfe280e5a5d}, /* 279 */
	{0x2341f8cd1558dfac, 0xb6c2d21ed908f87b}, /* 280 */
	{0x2c1277005aaf1797, 0xe47386a68f4b3699}, /* 281 */
	{0x371714c0715add7d, 0xdd906850331e043f}, /* 282 */
	{0x226e6cf846d8ca6e, 0xaa7a41321ff2c2a8}, /* 283 */
	{0x2b0a0836588efd0a, 0x5518d17ea7ef7352}, /* 284 */
	{0x35cc8a43eeb2bc4c, 0xea5f05de51eb5026}, /* 285 */
	{0x219fd66a752fb5b0, 0x127b63aaf3331218}, /* 286 */
	{0x2a07cc05127ba31c, 0x171a3c95afffd69e}, /* 287 */
	{0x3489bf06571a8be3, 0x1ce0cbbb1bffcc45}, /* 288 */
	{0x20d61763f670976d, 0xf20c7f54f17fdfab}, /* 289 */
	{0x290b9d3cf40cbd49, 0x6e8f9f2a2ddfd796}, /* 290 */
	{0x334e848c310fec9b, 0xca3386f4b957cd7b}, /* 291 */
	{0x201112d79ea9f3e1, 0x5e603458f3d6e06d}, /* 292 */
	{0x2815578d865470d9, 0xb5f8416f30cc9888}, /* 293 */
	{0x321aad70e7e98d10, 0x237651cafcffbeaa}, /* 294 */
	{0x3ea158cd21e3f054, 0x2c53e63dbc3fae55}, /* 295 */
	{0x2724d780352e7634, 0x9bb46fe695a7ccf5}, /* 296 */
	{0x30ee0d60427a13c1, 0xc2a18be03b11c033}, /* 297 */
	{0x3d2990b8531898b2, 0x3349eed849d6303f}, /* 298 */
	{0x2639fa7333ef5f6f, 0x600e35472e25de28}, /* 299 */
	{0x2fc8791000eb374b, 0x3811c298f9af55b1}, /* 300 */
	{0x3bba97540126051e, 0x0616333f381b2b1e}, /* 301 */
	{0x25549e9480b7c332, 0xc3cde0078310faf3}, /* 302 */
	{0x2ea9c639a0e5b3ff, 0x74c1580963d539af}, /* 303 */
	{0x3a5437c8091f20ff, 0x51f1ae0bbcca881b}, /* 304 */
	{0x2474a2dd05b3749f, 0x93370cc755fe9511}, /* 305 */
	{0x2d91cb94472051c7, 0x7804cff92b7e3a55}, /* 306 */
	{0x38f63e7958e86639, 0x560603f7765dc8ea}, /* 307 */
	{0x2399e70bd7913fe3, 0xd5c3c27aa9fa9d93}, /* 308 */
	{0x2c8060cecd758fdc, 0xcb34b319547944f7}, /* 309 */
	{0x37a0790280d2f3d3, 0xfe01dfdfa9979635}, /* 310 */
	{0x22c44ba19083d864, 0x7ec12bebc9febde1}, /* 311 */
	{0x2b755e89f4a4ce7d, 0x9e7176e6bc7e6d59}, /* 312 */
	{0x3652b62c71ce021d, 0x060dd4a06b9e08b0}, /* 313 */
	{0x21f3b1dbc720c152, 0x23c8a4e44342c56e}, /* 314 */
	{0x2a709e52b8e8f1a6, 0xacbace1d541376c9}, /* 315 */
	{0x350cc5e767232e10, 0x57e981a4a918547b}, /* 316 */
	{0x2127fbb0a075fcca, 0x36f1f106e9af34cd}, /* 317 */
	{0x2971fa9cc8937bfc, 0xc4ae6d48a41b0201}, /* 318 */
	{0x33ce7943fab85afb, 0xf5da089acd21c281}, /* 319 */
	{0x20610bca7cb338dd, 0x79a84560c0351991}, /* 320 */
	{0x28794ebd1be00714, 0xd81256b8f0425ff5}, /* 321 */
	{0x3297a26c62d808da, 0x0e16ec672c52f7f2}, /* 322 */
	{0x3f3d8b077b8e0b10, 0x919ca780f767b5ee}, /* 323 */
	{0x278676e4ad38c6ea, 0x5b01e8b09aa0d1b5}, /* 324 */
};

void dfs_dtoa_pow10_entry(int e, uint64_t *hi, uint64_t *lo)
{
	const pow10_entry *g = &pow10_table[e - DFS_DTOA_POW10_MIN];
	*hi = g->hi;
	*lo = g->lo;
}

/* The 128-bit product a * b: returns the low half, stores the high one */
static inline uint64_t umul128(uint64_t a, uint64_t b, uint64_t *hi)
{
#if defined(__SIZEOF_INT128__)
	__extension__ typedef unsigned __int128 u128;
	u128 p = (u128)a * b;
	*hi = (uint64_t)(p >> 64);
	return (uint64_t)p;
#else
	uint64_t a0 = a & 0xffffffffu, a1 = a >> 32;
	uint64_t b0 = b & 0xffffffffu, b1 = b >> 32;
	uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
	uint64_t mid = (p00 >> 32) + (p01 & 0xffffffffu) + (p10 & 0xffffffffu);
	*hi = p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
	return (mid << 32) | (p00 & 0xffffffffu);
#endif
}

/* floor(cp * g / 2^127), rounded to odd: the lowest bit is set when bits
 * 64..126 of the product are not all zero.  The bits below 2^64 are
 * dropped on purpose: g exceeds the exact power by less than one unit, so
 * the product exceeds the exact one by less than cp < 2^61, and an exact
 * (integral) result still comes out even. */
static inline uint64_t round_to_odd(const pow10_entry *g, uint64_t cp)
{
	uint64_t hh, lh;
	uint64_t hl = umul128(cp, g->hi, &hh);
	umul128(cp, g->lo, &lh);
	uint64_t ml = hl + lh;
	uint64_t mh = hh + (ml < hl);
	return ((mh << 1) | (ml >> 63)) | ((ml & MASK63) != 0);
}

/* A candidate d * 10^e, with trailing zeros of d removed */
static dfs_decimal make_decimal(uint64_t d, int e)
{
	while (d != 0 && d % 10 == 0) {
		d /= 10;
		e++;
	}
	return (dfs_decimal){ d, e };
}

/* The scaled quantities for one value: everything in units of 10^k / 4 */
typedef struct scaled {
	uint64_t vb, vbl, vbr; /* 4 v / 10^k and the ends of R, rounded to odd */
	int k;
	unsigned open; /* 1 if R excludes its ends (odd significand) */
} scaled;

/* Scale by 10^-k.  Schubfach's own k keeps h in [2, 5], so cb << h <
 * 2^60.  near_pow2() also asks for k - 1 for some powers of two, where h
 * reaches 6 and cb << h 2^60 + 128; the paper's error analysis does not
 * cover that case, but only the 2045 powers of two get there and the unit
 * test checks every one of them against printf. */
static scaled scale_at(uint64_t c, int q, bool lopsided, int k)
{
	scaled sc;
	uint64_t cb = c << 2;
	uint64_t cbl = lopsided ? cb - 1 : cb - 2;
	sc.k = k;
	/* this h makes cp * g / 2^127 == cb * 2^q * 10^-k */
	int h = q + dfs_flog2_pow10(-k) + 2;
	const pow10_entry *g = &pow10_table[-sc.k - DFS_DTOA_POW10_MIN];
	sc.vb = round_to_odd(g, cb << h);
	sc.vbl = round_to_odd(g, cbl << h);
	sc.vbr = round_to_odd(g, (cb + 2) << h);
	sc.open = (unsigned)(c & 1);
	return sc;
}

/* Is n * 10^k (n given as 4n) inside R? */
static inline bool in_r(const scaled *sc, uint64_t n4)
{
	return sc->vbl + sc->open <= n4 && n4 + sc->open <= sc->vbr;
}

/* Schubfach's choice for a symmetric interval */
static dfs_decimal shortest(const scaled *sc)
{
	uint64_t s = sc->vb >> 2;
	uint64_t s10 = s / 10, sp10 = s10 * 10, tp10 = sp10 + 10;
	bool upin = sc->vbl + sc->open <= sp10 << 2;
	bool wpin = (tp10 << 2) + sc->open <= sc->vbr;
	/* (R is narrower than 10^(k+1): never both) */
	if (upin != wpin)
		return make_decimal(s10 + wpin, sc->k + 1);
	/* neither multiple of 10 is in R, so s or t chosen here is none:
	 * no trailing zero to take off */
	uint64_t t = s + 1;
	bool uin = sc->vbl + sc->open <= s << 2;
	bool win = (t << 2) + sc->open <= sc->vbr;
	if (uin != win)
		return (dfs_decimal){ uin ? s : t, sc->k };
	/* both in R: the nearer, ties to even; vb vs the midpoint 4s + 2 */
	uint64_t mid = (s << 2) + 2;
	bool down = sc->vb < mid || (sc->vb == mid && (s & 1) == 0);
	return (dfs_decimal){ down ? s : t, sc->k };
}

static int count_digits(uint64_t d)
{
	int n = 1;
	while (d >= 10) {
		d /= 10;
		n++;
	}
	return n;
}

/* s = floor(v / 10^k) rounded to a multiple of 10^m the way printf
 * rounds v (to nearest, ties to even), in units of 10^k.  The quarters
 * in the low bits of vb, rounded to odd, compare exactly with the even
 * number 2 * 10^m, so the decision is exact. */
static uint64_t round_at(const scaled *sc, int m)
{
	uint64_t pw = 1;
	for (int i = 0; i < m; i++)
		pw *= 10;
	uint64_t s = sc->vb >> 2;
	uint64_t hi = s / pw, r4 = ((s % pw) << 2) + (sc->vb & 3);
	uint64_t half4 = pw << 1;
	bool up = r4 > half4 || (r4 == half4 && (hi & 1));
	return (hi + up) * pw;
}

/* For v = 2^52 * 2^q (see the top comment): the first length, from that
 * of Schubfach's answer on, whose correctly rounded decimal lies in R.
 * Seventeen digits always do, so work at the k where s has 17 digits. */
static dfs_decimal near_pow2(uint64_t c, int q, const scaled *sc, dfs_decimal first)
{
	int n = count_digits(first.digits);
	int len = count_digits(sc->vb >> 2);
	int k17 = sc->k - (17 - len);
	if (-k17 > DFS_DTOA_POW10_MAX)
		return first; /* not reached: only q = -1073 has k = -324, and
		               * there s has 17 digits */
	scaled s17 = len == 17 ? *sc : scale_at(c, q, true, k17);
	for (int p = n; p < 17; p++) {
		uint64_t d = round_at(&s17, 17 - p);
		if (in_r(&s17, d << 2))
			return make_decimal(d, k17);
	}
	return make_decimal(round_at(&s17, 0), k17);
}

dfs_decimal dfs_dtoa_shortest(double v)
{
	uint64_t bits;
	memcpy(&bits, &v, sizeof(bits));
	unsigned bq = (unsigned)(bits >> SIG_BITS) & 0x7ff;
	uint64_t t = bits & (HIDDEN_BIT - 1);
	uint64_t c = bq ? HIDDEN_BIT | t : t;
	int q = bq ? (int)bq - 1075 : Q_MIN;
	bool lopsided = t == 0 && bq > 1;
	int k = lopsided ? dfs_flog10_three_quarters_pow2(q) : dfs_flog10_pow2(q);
	scaled sc = scale_at(c, q, lopsided, k);
	dfs_decimal d = shortest(&sc);
	return lopsided ? near_pow2(c, q, &sc, d) : d;
}
