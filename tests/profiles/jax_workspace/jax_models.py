"""JAX and Flax models for test_jax_profiles.sh: the seed's GoodNet as a Flax
module, an nnx module, a plain function, a CNN, a factory-built model, operand
failures of dot_general and conv_general_dilated (one behind a misleading
message), a trace that sleeps, and a transformer whose graph outgrows the
default capture budget."""
import time

import jax
import jax.numpy as jnp
from jax import lax
import flax.linen as nn
from flax import nnx


class GoodNet(nn.Module):
    """The seed's two-profile example: input [batch, 4] -> [batch, 2]."""

    @nn.compact
    def __call__(self, x):
        return nn.Dense(2, name="fc")(x) * 2.0


class NnxMlp(nnx.Module):
    def __init__(self, hidden, rngs):
        self.fc1 = nnx.Linear(4, hidden, rngs=rngs)
        self.fc2 = nnx.Linear(hidden, 3, rngs=rngs)

    def __call__(self, x):
        return self.fc2(nnx.relu(self.fc1(x)))


def mlp(x, w):
    """A plain JAX function: [batch, 4] @ [4, 5] -> tanh -> its row sums and the matrix."""
    h = jnp.tanh(x @ w)
    return {"hidden": h, "total": h.sum(axis=1)}


class FlaxCNN(nn.Module):
    classes: int = 10

    @nn.compact
    def __call__(self, x, train: bool = False):
        x = nn.Conv(8, (3, 3), name="conv1")(x)
        x = nn.BatchNorm(use_running_average=not train, name="bn1")(x)
        x = nn.relu(x)
        x = nn.max_pool(x, (2, 2), strides=(2, 2))
        x = nn.Conv(16, (3, 3), name="conv2")(x)
        x = nn.relu(x).reshape((x.shape[0], -1))
        return nn.Dense(self.classes, name="head")(x)


class Scaled(nn.Module):
    """Built by make_scaled with its own variables (a factory)."""
    features: int

    @nn.compact
    def __call__(self, x):
        return nn.Dense(self.features, name="proj")(x)


def make_scaled(features=6):
    model = Scaled(features)
    variables = model.init(jax.random.PRNGKey(3), jnp.ones((1, 5)))
    return model, variables


def make_wrong():
    return GoodNet()


class DotMismatch(nn.Module):
    """x [batch, 4] against a kernel made for 8 input features."""

    @nn.compact
    def __call__(self, x):
        k = self.param("kernel", nn.initializers.lecun_normal(), (8, 2))
        return lax.dot_general(x, k, (((1,), (0,)), ((), ())))


class ConvMismatch(nn.Module):
    """A 3-channel NHWC image against a kernel made for 1 input channel."""

    @nn.compact
    def __call__(self, x):
        k = self.param("kernel", nn.initializers.lecun_normal(), (3, 3, 1, 8))
        return lax.conv_general_dilated(x, k, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))


class Misleading(nn.Module):
    """Re-raises the dot_general failure as a message naming a shape nobody established."""

    @nn.compact
    def __call__(self, x):
        k = self.param("kernel", nn.initializers.lecun_normal(), (8, 2))
        try:
            return x @ k
        except TypeError:
            raise ValueError("expected input of shape [7, 9]")


class MisleadingNoOp(nn.Module):
    """A message naming a shape, with no operator failing: nothing to report but the failure."""

    @nn.compact
    def __call__(self, x):
        raise ValueError("expected input of shape [7, 9]")


class Sleeps(nn.Module):
    @nn.compact
    def __call__(self, x):
        time.sleep(60)
        return x


class NotAModule:
    def __call__(self, x):
        return x


class Block(nn.Module):
    width: int
    heads: int

    @nn.compact
    def __call__(self, x):
        h = nn.LayerNorm()(x)
        h = nn.MultiHeadDotProductAttention(num_heads=self.heads, qkv_features=self.width)(h, h)
        x = x + h
        h = nn.LayerNorm()(x)
        h = nn.Dense(4 * self.width)(h)
        return x + nn.Dense(self.width)(nn.gelu(h))


class Transformer(nn.Module):
    """Token ids [batch, length] -> logits; unrolled layers, so each is its own equations."""
    layers: int = 24
    width: int = 32
    heads: int = 4
    vocab: int = 64

    @nn.compact
    def __call__(self, tokens):
        x = nn.Embed(self.vocab, self.width)(tokens)
        for i in range(self.layers):
            x = Block(self.width, self.heads, name="block%d" % i)(x)
        return nn.Dense(self.vocab, name="head")(nn.LayerNorm()(x))


def named_inputs():
    """An input factory: the plain function's inputs by name, as JAX arrays."""
    return {"x": jnp.ones((3, 4)), "w": jnp.ones((4, 5))}
