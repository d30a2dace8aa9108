"""nn.MultiheadAttention as PyTorch 1.13 has it: its parameters, its initial draws in order, and the forward
of multi_head_attention_forward op for op (the path PyTorch takes while training or while autograd is on; in
eval mode under no_grad PyTorch 1.13 may take a fused kernel whose last bits differ)."""
import math

import torch  # this package, still loading: its functions are looked up when a forward runs

from .._tensor import Tensor, bool_
from . import Linear, Module, Parameter, functional as F, init


class NonDynamicallyQuantizableLinear(Linear):
    """MultiheadAttention's out_proj: an nn.Linear under the name PyTorch prints."""


def _pad_column(mask):
    """pad(mask, (0, 1)): one more column of zeros (False for a bool mask)."""
    padded = torch.cat([mask, torch.zeros(*mask.shape[:-1], 1)], dim=-1)
    return padded.bool() if mask.dtype is bool_ else padded


def _shape_check(query, key, value, key_padding_mask, attn_mask, num_heads):
    """PyTorch's checks of the input dims: 3-D (batched) or 2-D (unbatched) query, key and value."""
    if query.dim() not in (2, 3):
        raise AssertionError(f"query should be unbatched 2D or batched 3D tensor but received {query.dim()}-D "
                             "query tensor")
    kind = "batched (3-D)" if query.dim() == 3 else "unbatched (2-D)"
    if key.dim() != query.dim() or value.dim() != query.dim():
        raise AssertionError(f"For {kind} `query`, expected `key` and `value` to be {query.dim()}-D but found "
                             f"{key.dim()}-D and {value.dim()}-D tensors respectively")
    if key_padding_mask is not None and key_padding_mask.dim() != query.dim() - 1:
        raise AssertionError(f"For {kind} `query`, expected `key_padding_mask` to be `None` or "
                             f"{query.dim() - 1}-D but found {key_padding_mask.dim()}-D tensor instead")
    if attn_mask is not None:
        if attn_mask.dim() not in (2, 3):
            raise AssertionError(f"For {kind} `query`, expected `attn_mask` to be `None`, 2-D or 3-D but found "
                                 f"{attn_mask.dim()}-D tensor instead")
        expected = (num_heads, query.shape[0], key.shape[0])
        if query.dim() == 2 and attn_mask.dim() == 3 and tuple(attn_mask.shape) != expected:
            raise AssertionError(f"Expected `attn_mask` shape to be {expected} but got {attn_mask.shape}")


class MultiheadAttention(Module):
    """Multi-head attention with one packed input projection (three when kdim or vdim differ from embed_dim)."""

    def __init__(self, embed_dim, num_heads, dropout=0.0, bias=True, add_bias_kv=False, add_zero_attn=False,
                 kdim=None, vdim=None, batch_first=False, device=None, dtype=None):
        super().__init__()
        self.embed_dim = embed_dim
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.num_heads = num_heads
        self.dropout = dropout
        self.batch_first = batch_first
        self.head_dim = embed_dim // num_heads
        if self.head_dim * num_heads != embed_dim:
            raise AssertionError("embed_dim must be divisible by num_heads")
        if self._qkv_same_embed_dim:
            self.in_proj_weight = Parameter(torch.empty(3 * embed_dim, embed_dim))
            for name in ("q_proj_weight", "k_proj_weight", "v_proj_weight"):
                self.register_parameter(name, None)
        else:
            self.q_proj_weight = Parameter(torch.empty(embed_dim, embed_dim))
            self.k_proj_weight = Parameter(torch.empty(embed_dim, self.kdim))
            self.v_proj_weight = Parameter(torch.empty(embed_dim, self.vdim))
            self.register_parameter("in_proj_weight", None)
        if bias:
            self.in_proj_bias = Parameter(torch.empty(3 * embed_dim))
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = NonDynamicallyQuantizableLinear(embed_dim, embed_dim, bias=bias)  # draws as nn.Linear
        if add_bias_kv:
            self.bias_k = Parameter(torch.empty(1, 1, embed_dim))
            self.bias_v = Parameter(torch.empty(1, 1, embed_dim))
        else:
            self.bias_k = self.bias_v = None
        self.add_zero_attn = add_zero_attn
        self._reset_parameters()

    def _reset_parameters(self):
        if self._qkv_same_embed_dim:
            init.xavier_uniform_(self.in_proj_weight)
        else:
            init.xavier_uniform_(self.q_proj_weight)
            init.xavier_uniform_(self.k_proj_weight)
            init.xavier_uniform_(self.v_proj_weight)
        if self.in_proj_bias is not None:
            init.constant_(self.in_proj_bias, 0.0)
            init.constant_(self.out_proj.bias, 0.0)
        if self.bias_k is not None:
            init.xavier_normal_(self.bias_k)
        if self.bias_v is not None:
            init.xavier_normal_(self.bias_v)

    def forward(self, query, key, value, key_padding_mask=None, need_weights=True, attn_mask=None,
                average_attn_weights=True):
        for name, t in (("query", query), ("key", key), ("value", value)):
            if not isinstance(t, Tensor):
                raise TypeError(f"MultiheadAttention.forward(): argument '{name}' must be Tensor, not "
                                f"{type(t).__name__}")
        _shape_check(query, key, value, key_padding_mask, attn_mask, self.num_heads)
        is_batched = query.dim() == 3
        if self.batch_first and is_batched:
            query, key, value = (t.transpose(1, 0) for t in (query, key, value))
        output, weights = self._attend(query, key, value, key_padding_mask, need_weights, attn_mask,
                                       average_attn_weights, is_batched)
        if self.batch_first and is_batched:
            return output.transpose(1, 0), weights
        return output, weights

    def _project(self, query, key, value):
        """The in-projection: one linear and three slices for self-attention, as PyTorch's packed weights."""
        E, b = self.embed_dim, self.in_proj_bias
        biases = (None, None, None) if b is None else (b[0:E], b[E:2 * E], b[2 * E:])
        if not self._qkv_same_embed_dim:
            weights = (self.q_proj_weight, self.k_proj_weight, self.v_proj_weight)
            return tuple(F.linear(x, w, bias) for x, w, bias in zip((query, key, value), weights, biases))
        w = self.in_proj_weight
        if query is key and key is value:
            return F.linear(query, w, b).chunk(3, dim=-1)
        if key is value:
            kv = F.linear(key, w[E:], None if b is None else b[E:])
            return (F.linear(query, w[0:E], biases[0]),) + kv.chunk(2, dim=-1)
        return tuple(F.linear(x, w[i * E:(i + 1) * E], biases[i]) for i, x in enumerate((query, key, value)))

    def _attend(self, query, key, value, key_padding_mask, need_weights, attn_mask, average_attn_weights,
                is_batched):
        if not is_batched:
            query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
            if key_padding_mask is not None:
                key_padding_mask = key_padding_mask.unsqueeze(0)
        tgt_len, bsz, embed_dim = query.shape
        if embed_dim != self.embed_dim:
            raise AssertionError(f"was expecting embedding dimension of {self.embed_dim}, but got {embed_dim}")
        if self._qkv_same_embed_dim and key.shape != value.shape:
            raise AssertionError(f"key shape {key.shape} does not match value shape {value.shape}")
        if not self._qkv_same_embed_dim and key.shape[:2] != value.shape[:2]:
            raise AssertionError(f"key's sequence and batch dims {key.shape[:2]} do not match value's "
                                 f"{value.shape[:2]}")
        heads, head_dim = self.num_heads, self.head_dim
        q, k, v = self._project(query, key, value)

        if attn_mask is not None:
            if attn_mask.dim() == 2:
                if tuple(attn_mask.shape) != (tgt_len, key.shape[0]):
                    raise RuntimeError(f"The shape of the 2D attn_mask is {attn_mask.shape}, but should be "
                                       f"{(tgt_len, key.shape[0])}.")
                attn_mask = attn_mask.unsqueeze(0)
            elif attn_mask.dim() == 3:
                if tuple(attn_mask.shape) != (bsz * heads, tgt_len, key.shape[0]):
                    raise RuntimeError(f"The shape of the 3D attn_mask is {attn_mask.shape}, but should be "
                                       f"{(bsz * heads, tgt_len, key.shape[0])}.")
            else:
                raise RuntimeError(f"attn_mask's dimension {attn_mask.dim()} is not supported")

        if self.bias_k is not None and self.bias_v is not None:
            k = torch.cat([k, self.bias_k.repeat(1, bsz, 1)])
            v = torch.cat([v, self.bias_v.repeat(1, bsz, 1)])
            if attn_mask is not None:
                attn_mask = _pad_column(attn_mask)
            if key_padding_mask is not None:
                key_padding_mask = _pad_column(key_padding_mask)

        q = q.contiguous().view(tgt_len, bsz * heads, head_dim).transpose(0, 1)
        k = k.contiguous().view(k.shape[0], bsz * heads, head_dim).transpose(0, 1)
        v = v.contiguous().view(v.shape[0], bsz * heads, head_dim).transpose(0, 1)

        if self.add_zero_attn:
            k = torch.cat([k, torch.zeros(bsz * heads, 1, head_dim)], dim=1)
            v = torch.cat([v, torch.zeros(bsz * heads, 1, head_dim)], dim=1)
            if attn_mask is not None:
                attn_mask = _pad_column(attn_mask)
            if key_padding_mask is not None:
                key_padding_mask = _pad_column(key_padding_mask)
        src_len = k.shape[1]

        # One additive mask of shape (bsz * heads, tgt_len, src_len): -inf where a key is left out.
        if key_padding_mask is not None:
            if tuple(key_padding_mask.shape) != (bsz, src_len):
                raise AssertionError(f"expecting key_padding_mask shape of {(bsz, src_len)}, but got "
                                     f"{key_padding_mask.shape}")
            padding = key_padding_mask.view(bsz, 1, 1, src_len).expand(-1, heads, -1, -1)
            padding = padding.reshape(bsz * heads, 1, src_len)
            if attn_mask is None:
                attn_mask = padding
            elif attn_mask.dtype is bool_:
                attn_mask = (attn_mask.float() + padding.float()) > 0  # logical_or
            else:
                attn_mask = (torch.zeros(bsz * heads, tgt_len, src_len) + attn_mask).masked_fill(padding, -math.inf)
        if attn_mask is not None and attn_mask.dtype is bool_:
            attn_mask = torch.zeros(*attn_mask.shape).masked_fill_(attn_mask, -math.inf)

        q_scaled = q / math.sqrt(head_dim)
        if attn_mask is not None:
            weights = torch.baddbmm(attn_mask, q_scaled, k.transpose(-2, -1))
        else:
            weights = torch.bmm(q_scaled, k.transpose(-2, -1))
        weights = weights.softmax(-1)
        if self.training and self.dropout > 0.0:
            weights = F.dropout(weights, p=self.dropout)
        output = torch.bmm(weights, v)
        output = output.transpose(0, 1).contiguous().view(tgt_len * bsz, embed_dim)
        output = F.linear(output, self.out_proj.weight, self.out_proj.bias)
        output = output.view(tgt_len, bsz, output.shape[1])

        if need_weights:
            weights = weights.view(bsz, heads, tgt_len, src_len)
            if average_attn_weights:
                weights = weights.sum(dim=1) / heads
            if not is_batched:
                return output[:, 0], weights[0]
            return output, weights
        return (output[:, 0] if not is_batched else output), None
