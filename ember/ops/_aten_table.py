"""The aten table: torch's ``aten`` overloads ember provides, one line each (data, read by ``_aten.py``).

A line is ``<schema as torch prints it>  <target> [options]``. Targets:
  ``=prim``        dispatch ember primitive ``prim``: Tensor (and Tensor-list) arguments in schema order
                   become its positional inputs (then Scalars, while the kernel wants more inputs); the
                   other arguments become its params by name;
  ``path``         call ember's public function ``ember.<path>`` with the schema's arguments (positional
                   ones by position, keyword-only ones by name);
  ``:helper``      call ``_aten_adapters.<helper>`` (argument forms no generic rule covers).
Options: ``prim=a,b`` the primitives a public-function entry stands for (for the reverse lookup),
``rn=p:a`` primitive param ``p`` is schema argument ``a``, ``drop=x,y`` arguments ember ignores (layouts, pinning, sparse gradients), ``fixed=x:v`` an argument
ember supports only at value ``v``.
"""

TABLE = """
# unary pointwise primitives
abs(Tensor self) -> Tensor  =abs
acos(Tensor self) -> Tensor  =acos
acosh(Tensor self) -> Tensor  =acosh
asin(Tensor self) -> Tensor  =asin
asinh(Tensor self) -> Tensor  =asinh
atan(Tensor self) -> Tensor  =atan
atanh(Tensor self) -> Tensor  =atanh
ceil(Tensor self) -> Tensor  =ceil
cos(Tensor self) -> Tensor  =cos
cosh(Tensor self) -> Tensor  =cosh
deg2rad(Tensor self) -> Tensor  =deg2rad
digamma(Tensor self) -> Tensor  =digamma
erf(Tensor self) -> Tensor  =erf
erfc(Tensor self) -> Tensor  =erfc
erfinv(Tensor self) -> Tensor  =erfinv
exp(Tensor self) -> Tensor  =exp
exp2(Tensor self) -> Tensor  =exp2
expm1(Tensor self) -> Tensor  =expm1
floor(Tensor self) -> Tensor  =floor
frac(Tensor self) -> Tensor  =frac
i0(Tensor self) -> Tensor  =i0
isfinite(Tensor self) -> Tensor  =isfinite
isinf(Tensor self) -> Tensor  =isinf
isnan(Tensor self) -> Tensor  =isnan
isneginf(Tensor self) -> Tensor  =isneginf
isposinf(Tensor self) -> Tensor  =isposinf
lgamma(Tensor self) -> Tensor  =lgamma
log(Tensor self) -> Tensor  =log
log10(Tensor self) -> Tensor  =log10
log1p(Tensor self) -> Tensor  =log1p
log2(Tensor self) -> Tensor  =log2
logical_not(Tensor self) -> Tensor  =logical_not
bitwise_not(Tensor self) -> Tensor  =bitwise_not
neg(Tensor self) -> Tensor  =neg
rad2deg(Tensor self) -> Tensor  =rad2deg
reciprocal(Tensor self) -> Tensor  =reciprocal
relu(Tensor self) -> Tensor  =relu
rsqrt(Tensor self) -> Tensor  =rsqrt
sgn(Tensor self) -> Tensor  =sgn
sigmoid(Tensor self) -> Tensor  =sigmoid
sign(Tensor self) -> Tensor  =sign
signbit(Tensor self) -> Tensor  =signbit
sin(Tensor self) -> Tensor  =sin
sinc(Tensor self) -> Tensor  =sinc
sinh(Tensor self) -> Tensor  =sinh
sqrt(Tensor self) -> Tensor  =sqrt
tan(Tensor self) -> Tensor  =tan
tanh(Tensor self) -> Tensor  =tanh
trunc(Tensor self) -> Tensor  =trunc
conj_physical(Tensor self) -> Tensor  =conj_physical
angle(Tensor self) -> Tensor  =angle
real(Tensor(a) self) -> Tensor(a)  =real
imag(Tensor(a) self) -> Tensor(a)  =imag
special_airy_ai(Tensor x) -> Tensor  =special_airy_ai
special_bessel_j0(Tensor self) -> Tensor  =special_bessel_j0
special_bessel_j1(Tensor self) -> Tensor  =special_bessel_j1
special_bessel_y0(Tensor self) -> Tensor  =special_bessel_y0
special_bessel_y1(Tensor self) -> Tensor  =special_bessel_y1
special_entr(Tensor self) -> Tensor  =special_entr
special_erfcx(Tensor self) -> Tensor  =special_erfcx
special_i0e(Tensor self) -> Tensor  =special_i0e
special_i1(Tensor self) -> Tensor  =special_i1
special_i1e(Tensor self) -> Tensor  =special_i1e
special_log_ndtr(Tensor self) -> Tensor  =special_log_ndtr
special_modified_bessel_i0(Tensor self) -> Tensor  =special_modified_bessel_i0
special_modified_bessel_i1(Tensor self) -> Tensor  =special_modified_bessel_i1
special_modified_bessel_k0(Tensor self) -> Tensor  =special_modified_bessel_k0
special_modified_bessel_k1(Tensor self) -> Tensor  =special_modified_bessel_k1
special_ndtr(Tensor self) -> Tensor  =special_ndtr
special_ndtri(Tensor self) -> Tensor  =special_ndtri
special_scaled_modified_bessel_k0(Tensor x) -> Tensor  =special_scaled_modified_bessel_k0
special_scaled_modified_bessel_k1(Tensor x) -> Tensor  =special_scaled_modified_bessel_k1
special_spherical_bessel_j0(Tensor x) -> Tensor  =special_spherical_bessel_j0
# pointwise with params
logit(Tensor self, float? eps=None) -> Tensor  =logit
nan_to_num(Tensor self, float? nan=None, float? posinf=None, float? neginf=None) -> Tensor  =nan_to_num
round(Tensor self) -> Tensor  =round
round.decimals(Tensor self, *, int decimals) -> Tensor  =round
mvlgamma(Tensor self, int p) -> Tensor  =mvlgamma
polygamma(int n, Tensor self) -> Tensor  =polygamma
clamp(Tensor self, Scalar? min=None, Scalar? max=None) -> Tensor  =clamp
clamp.Tensor(Tensor self, Tensor? min=None, Tensor? max=None) -> Tensor  clamp
addcmul(Tensor self, Tensor tensor1, Tensor tensor2, *, Scalar value=1) -> Tensor  =addcmul
addcdiv(Tensor self, Tensor tensor1, Tensor tensor2, *, Scalar value=1) -> Tensor  =addcdiv
lerp.Scalar(Tensor self, Tensor end, Scalar weight) -> Tensor  =lerp
lerp.Tensor(Tensor self, Tensor end, Tensor weight) -> Tensor  =lerp
where.self(Tensor condition, Tensor self, Tensor other) -> Tensor  =where
where.ScalarOther(Tensor condition, Tensor self, Scalar other) -> Tensor  =where
where.ScalarSelf(Tensor condition, Scalar self, Tensor other) -> Tensor  =where
where.Scalar(Tensor condition, Scalar self, Scalar other) -> Tensor  =where
sigmoid_backward(Tensor grad_output, Tensor output) -> Tensor  =sigmoid_backward
tanh_backward(Tensor grad_output, Tensor output) -> Tensor  =tanh_backward
threshold_backward(Tensor grad_output, Tensor self, Scalar threshold) -> Tensor  =threshold_backward fixed=threshold:0
# binary pointwise
add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor  =add
add.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor  =add
sub.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor  =sub
sub.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor  =sub
mul.Tensor(Tensor self, Tensor other) -> Tensor  =mul
mul.Scalar(Tensor self, Scalar other) -> Tensor  =mul
div.Tensor(Tensor self, Tensor other) -> Tensor  =div
div.Scalar(Tensor self, Scalar other) -> Tensor  =div
div.Tensor_mode(Tensor self, Tensor other, *, str? rounding_mode) -> Tensor  div prim=div,div_floor,div_trunc
div.Scalar_mode(Tensor self, Scalar other, *, str? rounding_mode) -> Tensor  div prim=div_floor,div_trunc
pow.Tensor_Tensor(Tensor self, Tensor exponent) -> Tensor  =pow
pow.Tensor_Scalar(Tensor self, Scalar exponent) -> Tensor  =pow
pow.Scalar(Scalar self, Tensor exponent) -> Tensor  =pow
atan2(Tensor self, Tensor other) -> Tensor  =atan2
bitwise_and.Tensor(Tensor self, Tensor other) -> Tensor  =bitwise_and
bitwise_and.Scalar(Tensor self, Scalar other) -> Tensor  =bitwise_and
bitwise_or.Tensor(Tensor self, Tensor other) -> Tensor  =bitwise_or
bitwise_or.Scalar(Tensor self, Scalar other) -> Tensor  =bitwise_or
bitwise_xor.Tensor(Tensor self, Tensor other) -> Tensor  =bitwise_xor
bitwise_xor.Scalar(Tensor self, Scalar other) -> Tensor  =bitwise_xor
bitwise_left_shift.Tensor(Tensor self, Tensor other) -> Tensor  =bitwise_left_shift
bitwise_right_shift.Tensor(Tensor self, Tensor other) -> Tensor  =bitwise_right_shift
copysign.Tensor(Tensor self, Tensor other) -> Tensor  =copysign
copysign.Scalar(Tensor self, Scalar other) -> Tensor  =copysign
eq.Tensor(Tensor self, Tensor other) -> Tensor  =eq
eq.Scalar(Tensor self, Scalar other) -> Tensor  =eq
ne.Tensor(Tensor self, Tensor other) -> Tensor  =ne
ne.Scalar(Tensor self, Scalar other) -> Tensor  =ne
ge.Tensor(Tensor self, Tensor other) -> Tensor  =ge
ge.Scalar(Tensor self, Scalar other) -> Tensor  =ge
gt.Tensor(Tensor self, Tensor other) -> Tensor  =gt
gt.Scalar(Tensor self, Scalar other) -> Tensor  =gt
le.Tensor(Tensor self, Tensor other) -> Tensor  =le
le.Scalar(Tensor self, Scalar other) -> Tensor  =le
lt.Tensor(Tensor self, Tensor other) -> Tensor  =lt
lt.Scalar(Tensor self, Scalar other) -> Tensor  =lt
fmax(Tensor self, Tensor other) -> Tensor  =fmax
fmin(Tensor self, Tensor other) -> Tensor  =fmin
fmod.Tensor(Tensor self, Tensor other) -> Tensor  =fmod
fmod.Scalar(Tensor self, Scalar other) -> Tensor  =fmod
gcd(Tensor self, Tensor other) -> Tensor  =gcd
lcm(Tensor self, Tensor other) -> Tensor  =lcm
heaviside(Tensor self, Tensor values) -> Tensor  =heaviside
hypot(Tensor self, Tensor other) -> Tensor  =hypot
igamma(Tensor self, Tensor other) -> Tensor  =igamma
igammac(Tensor self, Tensor other) -> Tensor  =igammac
logaddexp(Tensor self, Tensor other) -> Tensor  =logaddexp
logaddexp2(Tensor self, Tensor other) -> Tensor  =logaddexp2
logical_and(Tensor self, Tensor other) -> Tensor  =logical_and
logical_or(Tensor self, Tensor other) -> Tensor  =logical_or
logical_xor(Tensor self, Tensor other) -> Tensor  =logical_xor
maximum(Tensor self, Tensor other) -> Tensor  =maximum
minimum(Tensor self, Tensor other) -> Tensor  =minimum
nextafter(Tensor self, Tensor other) -> Tensor  =nextafter
remainder.Tensor(Tensor self, Tensor other) -> Tensor  =remainder
remainder.Scalar(Tensor self, Scalar other) -> Tensor  =remainder
xlogy.Tensor(Tensor self, Tensor other) -> Tensor  =xlogy
special_xlog1py(Tensor self, Tensor other) -> Tensor  =xlog1py
special_zeta(Tensor self, Tensor other) -> Tensor  =special_zeta
# reductions
sum(Tensor self, *, ScalarType? dtype=None) -> Tensor  sum prim=sum
sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor  sum prim=sum
mean(Tensor self, *, ScalarType? dtype=None) -> Tensor  mean prim=mean
mean.dim(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor  mean prim=mean
prod(Tensor self, *, ScalarType? dtype=None) -> Tensor  prod prim=prod
prod.dim_int(Tensor self, int dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor  prod prim=prod
amax(Tensor self, int[1] dim=[], bool keepdim=False) -> Tensor  amax prim=amax
amin(Tensor self, int[1] dim=[], bool keepdim=False) -> Tensor  amin prim=amin
any(Tensor self) -> Tensor  any prim=any
any.dim(Tensor self, int dim, bool keepdim=False) -> Tensor  any prim=any
any.dims(Tensor self, int[]? dim=None, bool keepdim=False) -> Tensor  any prim=any
all(Tensor self) -> Tensor  all prim=all
all.dim(Tensor self, int dim, bool keepdim=False) -> Tensor  all prim=all
all.dims(Tensor self, int[]? dim=None, bool keepdim=False) -> Tensor  all prim=all
argmax(Tensor self, int? dim=None, bool keepdim=False) -> Tensor  argmax prim=argmax
argmin(Tensor self, int? dim=None, bool keepdim=False) -> Tensor  argmin prim=argmin
max(Tensor self) -> Tensor  max prim=max_all
max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)  max prim=max_dim
min(Tensor self) -> Tensor  min prim=min_all
min.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)  min prim=min_dim
median(Tensor self) -> Tensor  median prim=median_all
median.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)  median prim=median_dim
nanmedian(Tensor self) -> Tensor  nanmedian prim=nanmedian_all
nanmedian.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)  nanmedian prim=nanmedian_dim
var.correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, bool keepdim=False) -> Tensor  var prim=var
std.correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, bool keepdim=False) -> Tensor  std prim=std
logsumexp(Tensor self, int[1] dim, bool keepdim=False) -> Tensor  logsumexp prim=logsumexp
cumsum(Tensor self, int dim, *, ScalarType? dtype=None) -> Tensor  cumsum prim=cumsum
cumprod(Tensor self, int dim, *, ScalarType? dtype=None) -> Tensor  cumprod prim=cumprod
cummax(Tensor self, int dim) -> (Tensor values, Tensor indices)  cummax prim=cummax
cummin(Tensor self, int dim) -> (Tensor values, Tensor indices)  cummin prim=cummin
logcumsumexp(Tensor self, int dim) -> Tensor  logcumsumexp prim=logcumsumexp
kthvalue(Tensor self, SymInt k, int dim=-1, bool keepdim=False) -> (Tensor values, Tensor indices)  kthvalue prim=kthvalue
mode(Tensor self, int dim=-1, bool keepdim=False) -> (Tensor values, Tensor indices)  mode prim=mode
linalg_vector_norm(Tensor self, Scalar ord=2, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor  linalg.vector_norm prim=linalg_vector_norm
# views and shape
view(Tensor(a) self, SymInt[] size) -> Tensor(a)  Tensor.view prim=view
view.dtype(Tensor(a) self, ScalarType dtype) -> Tensor(a)  Tensor.view prim=view_dtype
permute(Tensor(a) self, int[] dims) -> Tensor(a)  permute prim=permute
transpose.int(Tensor(a) self, int dim0, int dim1) -> Tensor(a)  transpose prim=transpose
t(Tensor(a) self) -> Tensor(a)  t
expand(Tensor(a) self, SymInt[] size, *, bool implicit=False) -> Tensor(a)  Tensor.expand prim=expand drop=implicit
unsqueeze(Tensor(a) self, int dim) -> Tensor(a)  unsqueeze prim=unsqueeze
squeeze(Tensor(a) self) -> Tensor(a)  squeeze
squeeze.dim(Tensor(a) self, int dim) -> Tensor(a)  squeeze
squeeze.dims(Tensor(a) self, int[] dim) -> Tensor(a)  squeeze prim=squeeze rn=dims:dim
select.int(Tensor(a) self, int dim, SymInt index) -> Tensor(a)  select prim=select
slice.Tensor(Tensor(a) self, int dim=0, SymInt? start=None, SymInt? end=None, SymInt step=1) -> Tensor(a)  :slice_tensor prim=slice
diagonal(Tensor(a) self, int offset=0, int dim1=0, int dim2=1) -> Tensor(a)  diagonal prim=diagonal
as_strided(Tensor(a) self, SymInt[] size, SymInt[] stride, SymInt? storage_offset=None) -> Tensor(a)  as_strided prim=as_strided
alias(Tensor(a) self) -> Tensor(a)  =alias
view_as_real(Tensor(a) self) -> Tensor(a)  view_as_real prim=view_as_real
view_as_complex(Tensor(a) self) -> Tensor(a)  view_as_complex prim=view_as_complex
reshape(Tensor(a) self, SymInt[] shape) -> Tensor(a)  reshape
_unsafe_view(Tensor self, SymInt[] size) -> Tensor  reshape
unbind.int(Tensor(a -> *) self, int dim=0) -> Tensor(a)[]  unbind
split.Tensor(Tensor(a -> *) self, SymInt split_size, int dim=0) -> Tensor(a)[]  split
split_with_sizes(Tensor(a -> *) self, SymInt[] split_sizes, int dim=0) -> Tensor(a)[]  split
chunk(Tensor(a -> *) self, int chunks, int dim=0) -> Tensor(a)[]  chunk
narrow(Tensor(a) self, int dim, SymInt start, SymInt length) -> Tensor(a)  narrow
flatten.using_ints(Tensor(a) self, int start_dim=0, int end_dim=-1) -> Tensor(a)  flatten
unflatten.int(Tensor(a) self, int dim, SymInt[] sizes) -> Tensor(a)  unflatten
movedim.int(Tensor(a) self, int source, int destination) -> Tensor(a)  movedim
clone(Tensor self, *, MemoryFormat? memory_format=None) -> Tensor  clone prim=clone
_to_copy(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, bool non_blocking=False, MemoryFormat? memory_format=None) -> Tensor  :to_copy prim=to_dtype
copy(Tensor self, Tensor src, bool non_blocking=False) -> Tensor  :copy prim=copy
flip(Tensor self, int[] dims) -> Tensor  flip prim=flip
roll(Tensor self, SymInt[1] shifts, int[1] dims=[]) -> Tensor  roll prim=roll
cat(Tensor[] tensors, int dim=0) -> Tensor  cat prim=cat
stack(Tensor[] tensors, int dim=0) -> Tensor  stack
tril(Tensor self, SymInt diagonal=0) -> Tensor  tril prim=tril
triu(Tensor self, SymInt diagonal=0) -> Tensor  triu prim=triu
repeat(Tensor self, SymInt[] repeats) -> Tensor  Tensor.repeat
# indexing
index.Tensor(Tensor self, Tensor?[] indices) -> Tensor  :index_tensor prim=index
index_put(Tensor self, Tensor?[] indices, Tensor values, bool accumulate=False) -> Tensor  :index_put prim=index_put
gather(Tensor self, int dim, Tensor index, *, bool sparse_grad=False) -> Tensor  gather prim=gather drop=sparse_grad
scatter.src(Tensor self, int dim, Tensor index, Tensor src) -> Tensor  scatter prim=scatter
scatter.value(Tensor self, int dim, Tensor index, Scalar value) -> Tensor  scatter
scatter_add(Tensor self, int dim, Tensor index, Tensor src) -> Tensor  scatter_add prim=scatter_add
scatter_reduce.two(Tensor self, int dim, Tensor index, Tensor src, str reduce, *, bool include_self=True) -> Tensor  scatter_reduce prim=scatter_reduce_two
index_select(Tensor self, int dim, Tensor index) -> Tensor  index_select prim=index_select
index_add(Tensor self, int dim, Tensor index, Tensor source, *, Scalar alpha=1) -> Tensor  index_add prim=index_add
index_copy(Tensor self, int dim, Tensor index, Tensor source) -> Tensor  index_copy prim=index_copy
index_fill.int_Scalar(Tensor self, int dim, Tensor index, Scalar value) -> Tensor  index_fill prim=index_fill
masked_fill.Scalar(Tensor self, Tensor mask, Scalar value) -> Tensor  masked_fill prim=masked_fill
masked_fill.Tensor(Tensor self, Tensor mask, Tensor value) -> Tensor  masked_fill
take(Tensor self, Tensor index) -> Tensor  take prim=take
nonzero(Tensor self) -> Tensor  nonzero prim=nonzero
isin.Tensor_Tensor(Tensor elements, Tensor test_elements, *, bool assume_unique=False, bool invert=False) -> Tensor  isin prim=isin
searchsorted.Tensor(Tensor sorted_sequence, Tensor self, *, bool out_int32=False, bool right=False, str? side=None, Tensor? sorter=None) -> Tensor  searchsorted prim=searchsorted
bincount(Tensor self, Tensor? weights=None, SymInt minlength=0) -> Tensor  bincount prim=bincount
histc(Tensor self, int bins=100, Scalar min=0, Scalar max=0) -> Tensor  histc prim=histc
sort(Tensor self, int dim=-1, bool descending=False) -> (Tensor values, Tensor indices)  sort prim=sort
sort.stable(Tensor self, *, bool? stable, int dim=-1, bool descending=False) -> (Tensor values, Tensor indices)  sort
topk(Tensor self, SymInt k, int dim=-1, bool largest=True, bool sorted=True) -> (Tensor values, Tensor indices)  topk prim=topk
# linear algebra
mm(Tensor self, Tensor mat2) -> Tensor  =mm
bmm(Tensor self, Tensor mat2) -> Tensor  =bmm
matmul(Tensor self, Tensor other) -> Tensor  =matmul
dot(Tensor self, Tensor tensor) -> Tensor  =dot
vdot(Tensor self, Tensor other) -> Tensor  =vdot
mv(Tensor self, Tensor vec) -> Tensor  =mv
addmm(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1) -> Tensor  =addmm
addmv(Tensor self, Tensor mat, Tensor vec, *, Scalar beta=1, Scalar alpha=1) -> Tensor  =addmv
addr(Tensor self, Tensor vec1, Tensor vec2, *, Scalar beta=1, Scalar alpha=1) -> Tensor  =addr
baddbmm(Tensor self, Tensor batch1, Tensor batch2, *, Scalar beta=1, Scalar alpha=1) -> Tensor  =baddbmm
einsum(str equation, Tensor[] tensors, *, int[]? path=None) -> Tensor  :einsum prim=einsum
linalg_det(Tensor A) -> Tensor  linalg.det prim=linalg_det
linalg_inv_ex(Tensor A, *, bool check_errors=False) -> (Tensor inverse, Tensor info)  linalg.inv_ex prim=linalg_inv_ex
linalg_cholesky_ex(Tensor self, *, bool upper=False, bool check_errors=False) -> (Tensor L, Tensor info)  linalg.cholesky_ex prim=linalg_cholesky_ex
linalg_eigh(Tensor self, str UPLO="L") -> (Tensor eigenvalues, Tensor eigenvectors)  linalg.eigh prim=linalg_eigh
linalg_qr(Tensor A, str mode="reduced") -> (Tensor Q, Tensor R)  linalg.qr prim=linalg_qr
linalg_slogdet(Tensor A) -> (Tensor sign, Tensor logabsdet)  linalg.slogdet prim=linalg_slogdet
linalg_solve(Tensor A, Tensor B, *, bool left=True) -> Tensor  linalg.solve prim=linalg_solve
linalg_svd(Tensor A, bool full_matrices=True, *, str? driver=None) -> (Tensor U, Tensor S, Tensor Vh)  linalg.svd prim=linalg_svd
linalg_svdvals(Tensor A, *, str? driver=None) -> Tensor  linalg.svdvals prim=linalg_svdvals
linalg_matrix_exp(Tensor self) -> Tensor  linalg.matrix_exp prim=linalg_matrix_exp
# neural network
convolution(Tensor input, Tensor weight, Tensor? bias, SymInt[] stride, SymInt[] padding, SymInt[] dilation, bool transposed, SymInt[] output_padding, SymInt groups) -> Tensor  =convolution
_softmax(Tensor self, int dim, bool half_to_float) -> Tensor  =_softmax fixed=half_to_float:False
_log_softmax(Tensor self, int dim, bool half_to_float) -> Tensor  =_log_softmax fixed=half_to_float:False
_softmax_backward_data(Tensor grad_output, Tensor output, int dim, ScalarType input_dtype) -> Tensor  =_softmax_backward_data drop=input_dtype
_log_softmax_backward_data(Tensor grad_output, Tensor output, int dim, ScalarType input_dtype) -> Tensor  =_log_softmax_backward_data drop=input_dtype
native_layer_norm(Tensor input, SymInt[] normalized_shape, Tensor? weight, Tensor? bias, float eps) -> (Tensor, Tensor, Tensor)  =native_layer_norm
native_layer_norm_backward(Tensor grad_out, Tensor input, SymInt[] normalized_shape, Tensor mean, Tensor rstd, Tensor? weight, Tensor? bias, bool[3] output_mask) -> (Tensor, Tensor, Tensor)  :native_layer_norm_backward prim=native_layer_norm_backward
embedding(Tensor weight, Tensor indices, SymInt padding_idx=-1, bool scale_grad_by_freq=False, bool sparse=False) -> Tensor  =embedding drop=sparse
embedding_dense_backward(Tensor grad_output, Tensor indices, SymInt num_weights, SymInt padding_idx, bool scale_grad_by_freq) -> Tensor  =embedding_dense_backward
nll_loss(Tensor self, Tensor target, Tensor? weight=None, int reduction=1, SymInt ignore_index=-100) -> Tensor  =nll_loss
nll_loss_forward(Tensor self, Tensor target, Tensor? weight, int reduction, SymInt ignore_index) -> (Tensor output, Tensor total_weight)  :nll_loss_forward
nll_loss_backward(Tensor grad_output, Tensor self, Tensor target, Tensor? weight, int reduction, SymInt ignore_index, Tensor total_weight) -> Tensor  :nll_loss_backward prim=nll_loss_backward
im2col(Tensor self, int[2] kernel_size, int[2] dilation, int[2] padding, int[2] stride) -> Tensor  =im2col
col2im(Tensor self, SymInt[2] output_size, int[2] kernel_size, int[2] dilation, int[2] padding, int[2] stride) -> Tensor  =col2im
# composites torch registers as aten ops (resolved in ember's public namespace)
softmax.int(Tensor self, int dim, ScalarType? dtype=None) -> Tensor  softmax
log_softmax.int(Tensor self, int dim, ScalarType? dtype=None) -> Tensor  log_softmax
linear(Tensor input, Tensor weight, Tensor? bias=None) -> Tensor  nn.functional.linear
gelu(Tensor self, *, str approximate="none") -> Tensor  nn.functional.gelu
silu(Tensor self) -> Tensor  nn.functional.silu
hardtanh(Tensor self, Scalar min_val=-1, Scalar max_val=1) -> Tensor  nn.functional.hardtanh
leaky_relu(Tensor self, Scalar negative_slope=0.01) -> Tensor  nn.functional.leaky_relu
elu(Tensor self, Scalar alpha=1, Scalar scale=1, Scalar input_scale=1) -> Tensor  nn.functional.elu fixed=scale:1,input_scale:1
softplus(Tensor self, Scalar beta=1, Scalar threshold=20) -> Tensor  nn.functional.softplus
hardswish(Tensor self) -> Tensor  nn.functional.hardswish
hardsigmoid(Tensor self) -> Tensor  nn.functional.hardsigmoid
mish(Tensor self) -> Tensor  nn.functional.mish
layer_norm(Tensor input, SymInt[] normalized_shape, Tensor? weight=None, Tensor? bias=None, float eps=1.0000000000000001e-05, bool cudnn_enable=True) -> Tensor  nn.functional.layer_norm drop=cudnn_enable
dropout(Tensor input, float p, bool train) -> Tensor  nn.functional.dropout
max_pool2d(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0, int[2] dilation=1, bool ceil_mode=False) -> Tensor  nn.functional.max_pool2d
avg_pool2d(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0, bool ceil_mode=False, bool count_include_pad=True, int? divisor_override=None) -> Tensor  nn.functional.avg_pool2d
adaptive_avg_pool2d(Tensor self, SymInt[2] output_size) -> Tensor  nn.functional.adaptive_avg_pool2d
# creation
full(SymInt[] size, Scalar fill_value, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor  full drop=layout,pin_memory
zeros(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor  zeros drop=layout,pin_memory
ones(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor  ones drop=layout,pin_memory
arange(Scalar end, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor  arange drop=layout,pin_memory
arange.start(Scalar start, Scalar end, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor  arange drop=layout,pin_memory
arange.start_step(Scalar start, Scalar end, Scalar step=1, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor  arange drop=layout,pin_memory
zeros_like(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor  zeros_like drop=layout,pin_memory,memory_format
ones_like(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor  ones_like drop=layout,pin_memory,memory_format
full_like(Tensor self, Scalar fill_value, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor  full_like drop=layout,pin_memory,memory_format
scalar_tensor(Scalar s, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor  scalar_tensor drop=layout,pin_memory
"""
