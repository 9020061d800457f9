import sys, torch, torch.nn.functional as F
ctx = int(sys.argv[1])
q = torch.randn(1, 32, 1, 128, device="cuda", dtype=torch.bfloat16)
k = torch.randn(1, 8, ctx, 128, device="cuda", dtype=torch.bfloat16)
v = torch.randn_like(k)
for _ in range(20):
    F.scaled_dot_product_attention(q, k, v, enable_gqa=True)
torch.cuda.synchronize()
